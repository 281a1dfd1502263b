// Allocation-free dense kernels of the QR methods of paper 000 (qr_projection.h): the
// Householder QR of A^T (8), a Jacobi eigensolver for the zero-eigenvalue basis (21), the
// matrix exponential of the continuation (28)-(29), the Gram-Schmidt step of s2.5 and a
// pivot-ratio singularity test. Every argument is preallocated by the caller; none of these
// allocates (Eigen's own SelfAdjointEigenSolver, HouseholderQR and rcond() do).
#pragma once

#include <Eigen/LU>

#include "problems/core/problem.h"

namespace mbb {

/// A cheap singularity test on an LU factorisation that does not allocate (PartialPivLU's
/// rcond() does): the ratio of the smallest to the largest pivot is above 1e-13.
bool WellConditioned(const Eigen::PartialPivLU<Matrix>& lu);

/// Cyclic Jacobi eigenvalue iteration on the symmetric s (overwritten: its diagonal becomes
/// the eigenvalues) with the eigenvectors accumulated in v. Used for the zero-eigenvalue basis
/// (21) because Eigen's SelfAdjointEigenSolver allocates in compute().
void JacobiEigenInto(Matrix& s, Matrix& v);

/// exp(x) by scaling and squaring of the Taylor series, into out; term and tmp are scratch.
/// The series is summed until a term is below 1e-17 relative (||x / 2^s||_1 <= 1/2).
void ExpInto(const Matrix& x, Matrix& out, Matrix& term, Matrix& tmp);

/// exp(x) for x = [0, -w^T; w, 0] (one constraint: Omega_1 = 0, x = Omega h, w = Omega_21 h),
/// a rotation by theta = |w| in the plane of e_1 and [0; w]: since x^3 = -theta^2 x,
/// exp(x) = I + sin(theta)/theta x + (1 - cos(theta))/theta^2 x^2 (Rodrigues), exactly.
void ExpOfPlaneRotationInto(const Matrix& x, Matrix& out, Matrix& tmp);

/// Modified Gram-Schmidt of columns m.. of q against all earlier columns (paper 000 s2.5,
/// last paragraph). Returns false if a column vanishes.
bool GramSchmidt(Matrix& q, int m);

/// Householder QR of a_t (n x m, n >= m) with LAPACK's (and Matlab's) sign convention:
/// q (n x n) orthogonal, r1 (m x m) upper triangular, a_t = q.leftCols(m) * r1. All
/// arguments are preallocated: work (n x m), v and w (n). Does not allocate.
void HouseholderQrInto(const Matrix& a_t, Matrix& work, Vector& v, Vector& w, Matrix& q,
                       Matrix& r1);

}  // namespace mbb
