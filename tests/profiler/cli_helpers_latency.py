"""``xprof stats --format json`` of a trace, run in-process (for runtime/CLI agreement)."""
import json

from click.testing import CliRunner

from xprof.mxcli.main import main


def stats_json(path):
    res = CliRunner().invoke(main, ["stats", str(path), "--format", "json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)
