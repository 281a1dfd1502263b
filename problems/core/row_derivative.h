// What a hand-written visit of Phi_q's entries gives at each entry (row, col)
// (equations_dae.h, HasHandConstraintDerivatives; model_equations.h, VisitRowDerivatives):
// the entry, its rate along v, or the derivative of the row's gamma with respect to q_col.
// gamma_r depends on q only through the coordinates Phi_r depends on, so all three share
// Phi_q's entries and one fixed visiting order.
#pragma once

namespace mbb {

enum class RowDerivative {
  kJacobian,       // d Phi_r / dq_c
  kRate,           // d/dt d Phi_r / dq_c along (t + s, q + v s): (Phi_qq v + Phi_qt)_rc
  kGammaJacobian,  // d gamma_r / dq_c at (t, q, v), gamma = -d^2/ds^2 Phi(t + s, q + v s)
};

}  // namespace mbb
