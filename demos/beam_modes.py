"""Modes of MISSION's cantilever; same as ``fe-contact demo beam``. Run: python demos/beam_modes.py"""

import sys

from fe_contact.demos.beam_modes import main

if __name__ == "__main__":
    sys.exit(main())
