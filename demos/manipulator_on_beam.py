"""The manipulator sliding on the cantilever (002 sec. 9); same as ``fe-contact demo manipulator``.

Run: python demos/manipulator_on_beam.py [--mu 0 0.2] [--t-end 0.6] [--jobs 2] [--out DIR]
"""

import sys

from fe_contact.demos.manipulator_on_beam import main

if __name__ == "__main__":
    sys.exit(main())
