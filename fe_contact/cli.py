"""Command line: ``fe-contact demo NAME [options]``; ``fe-contact demo --list``."""

from __future__ import annotations

import importlib
import sys

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
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: fe-contact demo NAME [options]   (fe-contact demo --list)"
    if not argv or argv[0] in ("-h", "--help"):
        print(usage)
        return 0 if argv else 2
    if argv[0] != "demo":
        print(f"fe-contact: unknown command {argv[0]!r}\n{usage}", file=sys.stderr)
        return 2
    if len(argv) < 2 or argv[1] in ("--list", "-l"):
        for name, (_, text) in DEMOS.items():
            print(f"  {name:<16} {text}")
        return 0
    name = argv[1]
    if name not in DEMOS:
        print(f"fe-contact: unknown demo {name!r}; available: {', '.join(DEMOS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(DEMOS[name][0])
    return module.main(argv[2:])


if __name__ == "__main__":
    sys.exit(main())
