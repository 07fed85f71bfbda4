"""``python -m xprof.mxcli`` = the ``xprof`` console script."""
from xprof.mxcli.main import main

if __name__ == "__main__":
    main(prog_name="xprof")
