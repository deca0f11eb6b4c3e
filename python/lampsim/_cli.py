"""The `lampsim` command of a pip-installed package: the CLI binary `pip install .` bundled in the
package (lampsim/_prefix/bin/lampsim, its presets in lampsim/_prefix/share/lampsim, where the binary
looks for them as after `make install`), run with the same arguments."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(HERE, "_prefix", "bin", "lampsim")


def main():
    if not os.path.isfile(BINARY):
        sys.stderr.write("lampsim: this package was built without the command-line tool (%s is missing); "
                         "reinstall with LAMPSIM_PREFIX set to a `cmake --install` tree, or without LAMPSIM_LIB so "
                         "that pip builds both (docs/python.md, \"Installing\")\n" % BINARY)
        return 2
    if not os.access(BINARY, os.X_OK):
        sys.stderr.write("lampsim: %s is not executable (reinstall the package)\n" % BINARY)
        return 2
    os.execv(BINARY, [BINARY] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
