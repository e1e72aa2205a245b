"""python3 -m npusim sweep SPEC -o OUT | python3 -m npusim plot RESULTS ..."""
import sys

USAGE = "usage: python3 -m npusim {sweep,plot} ... (python3 -m npusim sweep --help)"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "sweep":
        from .sweep_cli import main as run
    elif command == "plot":
        from .plot_cli import main as run
    else:
        print(f"npusim: unknown command '{command}'\n{USAGE}", file=sys.stderr)
        return 2
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
