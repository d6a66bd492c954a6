"""Wall time of the sliding-mass demo (``fe_contact.papers.lipinski.sliding_mass_model``, mu = 0.1)
against the number of beam elements.

Run: python benchmarks/sliding_mass.py [--t-end 0.1]. Prints, per element count: wall time per
simulated second, steps, Newton iterations per step, and the cost ratio to the 10-element case
(linear scaling means the ratio grows no faster than the element count).
"""

import argparse

from fe_contact.demos.sliding_mass import run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--t-end", type=float, default=0.1)
    parser.add_argument("--elements", type=int, nargs="*", default=[10, 20, 40, 80, 160])
    args = parser.parse_args()
    base = None
    print(f"{'elements':>8} {'wall/sim [s/s]':>15} {'steps':>6} {'newton/step':>12} {'ratio':>6}")
    for n in args.elements:
        _, res = run(mu=0.1, n_elements=n, t_end=args.t_end, progress=False)
        per_second = res.wall_time / res.t[-1]
        base = base or per_second
        print(
            f"{n:>8} {per_second:15.2f} {res.n_steps:>6} {res.n_newton / res.n_steps:12.2f} "
            f"{per_second / base:6.2f}"
        )


if __name__ == "__main__":
    main()
