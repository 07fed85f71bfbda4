"""The profiler port's switches: plain attributes the hot paths check (the NDArray layer
on every call, the engine through its own mask, the line sampler). A module of its own
so that everything that sets or reads them (the observer, the profiler state, the
sampler) imports it and none of them imports another for it."""


class Flags:
    """Checked by the NDArray layer on every call; plain attributes for speed."""

    __slots__ = ("api", "mem", "mem_rows", "recording", "shapes", "lines")

    def __init__(self):
        self.api = self.mem = self.recording = False
        self.mem_rows = False   # memory profiled with a CSV prefix: a row per allocation
        self.lines = False    # the line sampler runs: calls tell it where they run
        self.shapes = False   # operator slices carry their input shapes (operator modes on)


flags = Flags()
