#!/usr/bin/env python3
# Independent check of [003] s6 ("the change [of independent coordinates] can be done without
# a loss in integration order and stepsize"), written from the problem data alone (no suite
# code): classical RK4 on the physical pendulum's minimal equation
#   (J + m rho^2) gamma'' = -m g rho cos gamma
# (the catalogue's data, docs/problems.md physical_pendulum: m = 1 kg, rho = 0.5 m,
# J = m (2 rho)^2 / 12, g = 9.81, gamma from the horizontal, released at rest at gamma = 0),
# h = 1e-3 s over 10 s, against the same integration at h = 1e-4 s. Prints the largest error
# of gamma and of the centre of mass (x, y) = rho (cos gamma, sin gamma) over the steps: the
# error RK4 has at this step in the coordinates that need no switching, which the switching
# partitioned run (x, y, gamma) should match in size (nightly claim
# 003-rk4-switching-no-loss). Usage: python3 scripts/figures/pendulum_rk4_minimal.py
import math

k = 1*9.81*0.5/(1/12 + 0.25)
f = lambda g, w: (w, -k*math.cos(g))
def rk4(h, T, every):
    g, w, out = 0.0, 0.0, [(0.0, 0.0)]
    n = round(T/h)
    for i in range(n):
        k1 = f(g, w); k2 = f(g + h/2*k1[0], w + h/2*k1[1]); k3 = f(g + h/2*k2[0], w + h/2*k2[1]); k4 = f(g + h*k3[0], w + h*k3[1])
        g += h/6*(k1[0]+2*k2[0]+2*k3[0]+k4[0]); w += h/6*(k1[1]+2*k2[1]+2*k3[1]+k4[1])
        if (i+1) % every == 0: out.append(((i+1)*h, g))
    return out
coarse = rk4(1e-3, 10.0, 1)
fine = rk4(1e-4, 10.0, 10)
e_g = max(abs(a[1]-b[1]) for a, b in zip(coarse, fine))
e_xy = max(max(abs(0.5*math.cos(a[1])-0.5*math.cos(b[1])), abs(0.5*math.sin(a[1])-0.5*math.sin(b[1]))) for a, b in zip(coarse, fine))
print("max |gamma error| %.3e, max |x|,|y| error %.3e, max over all %.3e" % (e_g, e_xy, max(e_g, e_xy)))
