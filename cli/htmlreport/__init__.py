"""``xprof report``'s stages: :mod:`.collect` (trace -> plain documents), :mod:`.render`
(documents -> one self-contained HTML page, charts from :mod:`.svg`)."""
