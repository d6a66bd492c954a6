"""The command line ``fe-contact``: ``demo``, ``run``, ``sweep`` and ``info``.

Every invalid value is rejected before any work, with one line naming the option, the value
and what is allowed, and exit code 2; a simulation that fails exits 1 with its message (its
history is kept); success exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from pathlib import Path

from .demos import folder  # an output folder: may not exist yet, may not be a file

DEMOS = {
    "manipulator": (
        "fe_contact.demos.manipulator_on_beam",
        "manipulator sliding on the cantilever, friction sweep (002 sec. 9)",
    ),
    "beam": ("fe_contact.demos.beam_modes", "modes and self-weight deflection of the cantilever"),
    "disk-on-string": (
        "fe_contact.demos.disk_on_string",
        "rigid disk falling into / rolling on a hanging string (Moreau-Jean, 004 sec. 5)",
    ),
    "sliding-mass": (
        "fe_contact.demos.sliding_mass",
        "point mass sliding with friction on the beam",
    ),
    "slider-on-string": (
        "fe_contact.demos.slider_on_string",
        "trolley sliding with friction on the hanging string (generalised-alpha)",
    ),
    "disk-on-beam": (
        "fe_contact.demos.disk_on_beam",
        "disk dropped onto and rolling along the cantilever (Moreau-Jean)",
    ),
    "friction-oscillator": (
        "fe_contact.demos.friction_oscillator",
        "block on a spring on a moving belt: stick-slip limit cycle, mu_s > mu_k",
    ),
    "pin-on-wheel": (
        "fe_contact.demos.pin_on_wheel",
        "rough pin on a rotating wheel: impacts, run-in wear, apparent friction (003 sec. 4)",
    ),
    "cam-lock": (
        "fe_contact.demos.cam_lock",
        "Bauchau's cam locking mechanism: Hertz contact of Bezier profiles, rolling (000 7.2)",
    ),
    "capstan": (
        "fe_contact.demos.capstan",
        "string over a drum: slip force against Euler-Eytelwein T e^(mu theta) (Moreau-Jean)",
    ),
    "belt-drive": (
        "fe_contact.demos.belt_drive",
        "belt over two pulleys: adhesion and creep arcs against the creep theory (Moreau-Jean)",
    ),
    "pantograph": (
        "fe_contact.demos.pantograph",
        "lumped-mass pantograph on the catenary at speed: EN 50318 contact-force statistics",
    ),
}
_WIDTH = max(map(len, DEMOS))  # the demo names' column in --list

SCHEDULER = re.compile(r"^([a-z]+://)?[\w.\-\[\]:]+:\d+$")


class UsageError(Exception):
    """An invalid command line or model file: one message, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block), exit code 2."""

    def error(self, message):
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


# -- option types: each names the value and what is allowed ----------------------------------


def positive_int_argument(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}; allowed: an integer >= 1")
    return value


def key_value(text: str) -> tuple[str, object]:
    from .io.model_file import parse_value

    key, sep, value = text.partition("=")
    if not sep or not re.fullmatch(r"[\w\-]+(\.[\w\-]+)*", key.strip()) or not value.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r}; allowed: KEY.PATH=VALUE, e.g. contacts.tip.mu=0.2"
        )
    return key.strip(), parse_value(value.strip())


def variation_text(text: str) -> str:
    """A --vary value, parsed in ``command_sweep`` once --max-cases is known."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(
            f"{text!r}; allowed: KEY.PATH=START:STOP:COUNT or KEY.PATH=V1,V2,..."
        )
    return text


def result_spec(text: str) -> str:
    from .io.model_file import parse_result

    try:
        parse_result(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r}; {err}") from None
    return text


def model_path(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file; allowed: a model file (TOML)")
    return path


def scheduler_address(text: str) -> str:
    if not SCHEDULER.match(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}; allowed: a dask scheduler address such as tcp://10.0.0.5:8786"
        )
    return text


# -- the parser ------------------------------------------------------------------------------


def build_parser() -> Parser:
    from . import __version__

    parser = Parser(
        prog="fe-contact",
        description="Planar flexible multibody dynamics with frictional contact: run the "
        "demos, run and sweep model files (TOML), describe a model file.",
        epilog="fe-contact COMMAND --help describes each command.",
    )
    parser.add_argument("--version", action="version", version=f"fe-contact {__version__}")
    loud = parser.add_mutually_exclusive_group()
    loud.add_argument(
        "-q", "--quiet", action="store_true", help="only warnings and errors (no progress)"
    )
    loud.add_argument("-v", "--verbose", action="store_true", help="debug messages too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="run a demo (fe-contact demo --list; fe-contact demo NAME --help)",
        description="Run a demo: fe-contact demo NAME [options]. Demos:\n"
        + "\n".join(f"  {n:<{_WIDTH}} {t}" for n, (_, t) in DEMOS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("--list", action="store_true", help="list the demos")

    model_help = "the model file (TOML; see examples/)"
    set_help = "override a key of the model file, e.g. contacts.tip.mu=0.2 (repeatable)"
    run = sub.add_parser(
        "run",
        help="run a model file",
        description="Run a model file: writes OUT/model.toml, OUT/history.csv, the ParaView "
        "series OUT/frames.pvd and OUT/status.json. Exit code 1 when the simulation fails "
        "(its history is kept).",
    )
    run.add_argument("model", type=model_path, metavar="MODEL.toml", help=model_help)
    run.add_argument(
        "--set", type=key_value, action="append", default=[], metavar="KEY=VALUE", help=set_help
    )
    run.add_argument("--out", type=folder, help="output folder (default out/<model name>)")
    run.add_argument("--overwrite", action="store_true", help="clear another run's files in --out")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    run.add_argument(
        "--record-every",
        type=positive_int_argument,
        default=1,
        metavar="N",
        help="keep every N-th state in memory (the CSV keeps every step; default 1)",
    )

    sweep = sub.add_parser(
        "sweep",
        help="run the cartesian product of varied parameters",
        description="Run a model file for every combination of the varied key paths: one "
        "folder per case (OUT/mu=0.1/...), OUT/summary.csv and a figure of a result against "
        "the first varied parameter. A failed case is reported, the others go on; a re-run "
        "skips the finished cases.",
    )
    sweep.add_argument("model", type=model_path, metavar="MODEL.toml", help=model_help)
    sweep.add_argument(
        "--vary",
        type=variation_text,
        action="append",
        required=True,
        metavar="KEY=START:STOP:COUNT|V1,V2",
        help="a varied key path, e.g. contacts.tip.mu=0:0.3:7 (repeatable)",
    )
    sweep.add_argument(
        "--set", type=key_value, action="append", default=[], metavar="KEY=VALUE", help=set_help
    )
    where = sweep.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=positive_int_argument,
        default=None,
        help="local processes (default: one per CPU core, at most one per case, as the demos)",
    )
    where.add_argument(
        "--scheduler", type=scheduler_address, help="dask.distributed scheduler address"
    )
    sweep.add_argument(
        "--result",
        type=result_spec,
        action="append",
        default=None,
        metavar="STAT:COLUMN",
        help="a scalar result per case (final, initial, max, min, mean, max_abs of a history "
        "column; default: [output] results of the file); repeatable",
    )
    sweep.add_argument("--plot", type=result_spec, metavar="STAT:COLUMN", help="result drawn")
    sweep.add_argument("--out", type=folder, help="output folder (default out/<model>_sweep)")
    sweep.add_argument("--overwrite", action="store_true", help="run every case again")
    sweep.add_argument(
        "--record-every",
        type=positive_int_argument,
        default=1,
        metavar="N",
        help="each case keeps every N-th state in memory (its CSV keeps every step; default 1)",
    )
    sweep.add_argument(
        "--max-cases",
        type=positive_int_argument,
        default=None,
        metavar="N",
        help="refuse a sweep of more than N cases before any work (default: "
        "$FE_CONTACT_MAX_CASES, else 1000)",
    )
    sweep.add_argument("-q", "--quiet", action="store_true", help="no progress lines")

    info = sub.add_parser(
        "info",
        help="describe a model file",
        description="Print a model "
        "file's structures, bodies, degrees of freedom, contacts and run.",
    )
    info.add_argument("model", type=model_path, metavar="MODEL.toml", help=model_help)
    info.add_argument(
        "--set", type=key_value, action="append", default=[], metavar="KEY=VALUE", help=set_help
    )
    return parser


# -- commands --------------------------------------------------------------------------------


def _load(args):
    """The model file with the --set overrides, checked (UsageError otherwise)."""
    from .io.model_file import ModelFileError, load_model
    from .runner import prepare

    try:
        return prepare(load_model(args.model, args.set))
    except ModelFileError as err:
        raise _problems(err, {key: "--set" for key, _ in args.set}, args.model) from None


def command_run(args) -> int:
    from .io.model_file import ModelFileError
    from .runner import FolderInUse, check_run_memory, claim_folder, execute

    prepared = _load(args)
    try:
        check_run_memory(prepared, args.record_every)
    except ModelFileError as err:
        raise UsageError(str(err.problems[0])) from None
    out = args.out or Path("out") / args.model.stem
    try:
        claim_folder(out, args.overwrite)
    except FolderInUse as err:
        raise UsageError(f"--out {err}") from None
    if args.quiet:
        import logging

        logging.getLogger("fe_contact").setLevel(logging.WARNING)
    progress = None if args.quiet else f"run {args.model.name}"
    result = execute(prepared, out, progress, args.record_every)
    stream = sys.stdout if result.success else sys.stderr
    print(f"{result.status}: {result.message}; {result.n_steps} steps; files in {out}", file=stream)
    return 0 if result.success else 1


def _problems(err, options: dict, source) -> UsageError:
    """A UsageError listing a model file's problems, each with the option that set its key
    (``options``: key path -> option text)."""
    lines = []
    for problem in err.problems:
        option = options.get(problem.path)
        lines.append(f"{option}: {problem}" if option else f"{source}: {problem}")
    return UsageError("\n".join(lines))


def command_sweep(args) -> int:
    from .columns import history_columns
    from .io.model_file import (
        ModelFileError,
        apply_override,
        parse_document,
        parse_result,
        read_document,
    )
    from .limits import LimitExceeded, check_cases, max_cases
    from .runner import folder_writer, prepare, remove_run_files, run_files
    from .sweep import Variation, case_count, plan, plot_result, run_sweep

    try:  # the values and the case count before anything else
        limit = max_cases(args.max_cases)
        args.vary = [Variation.parse(text, limit) for text in args.vary]
        n_cases = check_cases(case_count(args.vary), limit)
    except LimitExceeded as err:
        raise UsageError(str(err)) from None
    except ValueError as err:
        raise UsageError(f"--vary: {err}") from None
    try:
        doc = read_document(args.model)
        for key, value in args.set:
            apply_override(doc, key, value)
    except (ModelFileError, ValueError) as err:
        raise UsageError(f"--set: {err}") from None
    options = {key: "--set" for key, _ in args.set}
    if args.result is not None:  # the options, else the file's [output]
        apply_override(doc, "output.results", list(args.result))
        options.update({f"output.results.{i}": "--result" for i in range(len(args.result))})
    if args.plot is not None:
        apply_override(doc, "output.plot", args.plot)
        options["output.plot"] = "--plot"
    try:
        prepared = prepare(parse_document(doc, str(args.model)))
    except ModelFileError as err:
        raise _problems(err, options, args.model) from None
    base = prepared.model_file
    results = list(base.output.results)
    plot = base.output.plot or (results[0] if results else None)
    units = dict(history_columns(prepared.system))  # the plotted column's unit on its axis
    try:
        cases = plan(doc, args.vary, str(args.model), limit)
    except ModelFileError as err:
        raise UsageError(f"--vary: {err.one_line()}") from None
    except ValueError as err:
        raise UsageError(f"--vary: {err}") from None
    out = args.out or Path("out") / f"{args.model.stem}_sweep"
    other = folder_writer(out)
    if (run_files(out) or other not in (None, "sweep")) and not args.overwrite:
        by = f" (written by 'fe-contact {other}')" if other not in (None, "sweep") else ""
        raise UsageError(
            f"--out {out} holds a single run's files{by}; allowed: a sweep folder or a new "
            "one, or --overwrite to clear them"
        )
    if args.overwrite:
        remove_run_files(run_files(out))

    def report(row):
        if not args.quiet:
            skipped = " (finished before, skipped)" if row.get("skipped") else ""
            print(
                f"case {row['case']}: {row['status']}{skipped}: {row['message']}",
                file=sys.stderr,
                flush=True,
            )
        return row

    if args.jobs is None:  # the demos' default
        args.jobs = max(1, min(os.cpu_count() or 1, n_cases))
    if not args.quiet:
        where = args.scheduler or f"{args.jobs} local process{'es' * (args.jobs > 1)}"
        print(f"{n_cases} cases (limit {limit}: --max-cases) on {where}", file=sys.stderr)
    rows = run_sweep(
        cases,
        args.vary,
        results,
        out,
        args.jobs,
        args.scheduler,
        str(args.model),
        report,
        args.overwrite,
        args.record_every,
    )
    written = [out / "summary.csv"]
    if plot is not None and any(r["status"] != "failed" for r in rows):
        name = plot.replace(":", "_")
        unit = units.get(parse_result(plot)[1], "")
        written += plot_result(rows, args.vary, plot, out / name, unit)
    failed = [r for r in rows if r["status"] != "finished"]
    print(
        f"{len(rows) - len(failed)} of {len(rows)} cases finished; wrote "
        + ", ".join(str(p) for p in written)
    )
    for row in failed:
        print(f"case {row['case']} {row['status'].upper()}: {row['message']}", file=sys.stderr)
    return 1 if failed else 0


def command_info(args) -> int:
    from .io.info import describe

    prepared = _load(args)
    print(describe(prepared, str(args.model)))
    return 0


def command_demo(argv) -> int:
    """``demo NAME ...`` goes to the demo's own ``main`` (its options and --help)."""
    name = argv[0]
    if name not in DEMOS:
        raise UsageError(f"unknown demo {name!r}; allowed: {', '.join(DEMOS)}")
    module = importlib.import_module(DEMOS[name][0])
    return module.main(argv[1:])


def _verbosity(argv: list[str]) -> list[str]:
    """Take the global -q/--quiet and -v/--verbose from the front of argv and set the level of
    the ``fe_contact`` loggers (progress lines at INFO): WARNING, DEBUG or INFO."""
    import logging

    from .steppers.observers import progress_logger

    level = logging.INFO
    while argv and argv[0] in ("-q", "--quiet", "-v", "--verbose"):
        level = logging.WARNING if argv.pop(0) in ("-q", "--quiet") else logging.DEBUG
    progress_logger()
    logging.getLogger("fe_contact").setLevel(level)
    return argv


def main(argv=None) -> int:
    import logging

    from .steppers.background_compile import ENVIRONMENT as COMPILE_ENVIRONMENT
    from .steppers.observers import progress_logger

    progress_logger()  # sets up the fe_contact loggers (INFO on stderr) unless the host did
    package = logging.getLogger("fe_contact")
    level = package.level
    # a first run after installation takes the Python step while the kernels compile in a
    # background process (``steppers.background_compile``), unless the variable says otherwise
    ours = COMPILE_ENVIRONMENT not in os.environ
    if ours:
        os.environ[COMPILE_ENVIRONMENT] = "background"  # the command's worker processes too
    try:
        return _main(_verbosity(list(sys.argv[1:] if argv is None else argv)))
    finally:
        package.setLevel(level)  # the command's -q / -v end with it
        if ours:
            os.environ.pop(COMPILE_ENVIRONMENT, None)


def _main(argv: list[str]) -> int:
    try:
        if len(argv) >= 2 and argv[0] == "demo" and not argv[1].startswith("-"):
            return command_demo(argv[1:])
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2 if not argv else 0
        if args.command == "demo":
            for name, (_, text) in DEMOS.items():
                print(f"  {name:<{_WIDTH}} {text}")
            return 0
        return {"run": command_run, "sweep": command_sweep, "info": command_info}[args.command](
            args
        )
    except UsageError as err:
        prog = "fe-contact" + (f" {argv[0]}" if argv else "")
        print(f"{prog}: {err}", file=sys.stderr)
        return 2
    except SystemExit as done:  # argparse: --help, --version and usage errors
        return done.code if isinstance(done.code, int) else 1


if __name__ == "__main__":
    sys.exit(main())
