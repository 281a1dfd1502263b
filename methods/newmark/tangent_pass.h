// One pass of the tangent-manifold Newmark iteration (paper 001, section 5, Fig. 11) on
// the dense or the sparse route (tangent_workspace.h); tangent_newmark.cc runs the
// iteration, tangent_pass.cc says which equation each part implements.
#pragma once

#include "methods/newmark/tangent_workspace.h"

namespace mbb {

/// The derivative terms of the dense route at the iterate (x0, v0, a0, lambda0): the
/// stiffness K (eq. 52), H' (eq. 35) and H'' (eq. 41), and their non-zeros.
void RefreshTangentDerivatives(TangentWorkspace& w, double t1);

/// The least-squares multiplier of the iterate, Phi_q^T lambda0 = Q - M a0.
template <class Ops>
void SolveTangentMultiplier(TangentWorkspace& w, const Ops& ops);

/// Steps 2-5 of Fig. 11 at the iterate, with the multiplier and the derivative terms in
/// place: x1, v1, a1. False if the reduced system (52) is singular.
template <class Ops>
bool FinishTangentPass(TangentWorkspace& w, double beta, double gamma, double h, double t1,
                       const FixedStepState& s, const Ops& ops);

/// Section 5: the largest natural frequency of (M_R, K_R) at the iterate (NaN if it could
/// not be computed); updates w.omega_max, or clears w.omega_valid.
template <class Ops>
double TrackFrequency(TangentWorkspace& w, const Ops& ops);

}  // namespace mbb
