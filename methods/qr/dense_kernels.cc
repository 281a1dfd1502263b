// The dense kernels of the QR methods (dense_kernels.h has what each computes).
#include "methods/qr/dense_kernels.h"

#include <algorithm>
#include <cmath>

namespace mbb {

bool WellConditioned(const Eigen::PartialPivLU<Matrix>& lu) {
  const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
  return pivots.minCoeff() > 1e-13 * pivots.maxCoeff();
}

void JacobiEigenInto(Matrix& s, Matrix& v) {
  const int n = static_cast<int>(s.rows());
  v.setIdentity();
  const double scale = s.cwiseAbs().maxCoeff();
  if (!(scale > 0.0)) return;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off = std::max(off, std::abs(s(p, q)));
    if (off <= 1e-17 * scale) return;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (std::abs(s(p, q)) <= 1e-300) continue;
        // Rotation that zeroes s(p, q): t = tan(phi), the smaller root of t^2 + 2 theta t = 1.
        const double theta = (s(q, q) - s(p, p)) / (2.0 * s(p, q));
        const double t =
            (theta >= 0.0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), sn = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double a = s(k, p), b = s(k, q);
          s(k, p) = c * a - sn * b;
          s(k, q) = sn * a + c * b;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double a = s(p, k), b = s(q, k);
          s(p, k) = c * a - sn * b;
          s(q, k) = sn * a + c * b;
        }
        for (int k = 0; k < n; ++k) {
          const double a = v(k, p), b = v(k, q);
          v(k, p) = c * a - sn * b;
          v(k, q) = sn * a + c * b;
        }
      }
  }
}

void ExpInto(const Matrix& x, Matrix& out, Matrix& term, Matrix& tmp) {
  double norm = x.cwiseAbs().colwise().sum().maxCoeff();
  int squarings = 0;
  while (norm > 0.5) {
    norm *= 0.5;
    ++squarings;
  }
  const double scale = std::ldexp(1.0, -squarings);
  term = x * scale;
  out.setIdentity();
  out += term;
  for (int k = 2; k < 30; ++k) {
    tmp.noalias() = term * x;
    term = tmp * (scale / k);
    out += term;
    if (term.cwiseAbs().maxCoeff() < 1e-17) break;
  }
  for (int s = 0; s < squarings; ++s) {
    tmp.noalias() = out * out;
    out = tmp;
  }
}

void ExpOfPlaneRotationInto(const Matrix& x, Matrix& out, Matrix& tmp) {
  const double theta = x.col(0).norm();
  out.setIdentity();
  if (theta == 0.0) return;
  const double s = theta > 1e-4 ? std::sin(theta) / theta : 1.0 - theta * theta / 6.0;
  const double c =
      theta > 1e-4 ? (1.0 - std::cos(theta)) / (theta * theta) : 0.5 - theta * theta / 24.0;
  tmp.noalias() = x * x;
  out += s * x + c * tmp;
}

bool GramSchmidt(Matrix& q, int m) {
  for (int i = m; i < q.cols(); ++i) {
    for (int j = 0; j < i; ++j) q.col(i) -= q.col(j).dot(q.col(i)) * q.col(j);
    const double norm = q.col(i).norm();
    if (!(norm > 1e-8)) return false;
    q.col(i) /= norm;
  }
  return true;
}

void HouseholderQrInto(const Matrix& a_t, Matrix& work, Vector& v, Vector& w, Matrix& q,
                       Matrix& r1) {
  const int n = static_cast<int>(a_t.rows());
  const int m = static_cast<int>(a_t.cols());
  work = a_t;
  q.setIdentity();
  for (int j = 0; j < m; ++j) {
    const int len = n - j;
    const double alpha = work(j, j);
    const double sigma = work.col(j).tail(len - 1).squaredNorm();
    double tau = 0.0, beta = alpha;
    if (sigma > 0.0) {
      beta = std::sqrt(alpha * alpha + sigma);
      if (alpha >= 0.0) beta = -beta;  // LAPACK dlarfg: beta = -sign(alpha) ||x||
      tau = (beta - alpha) / beta;
      v(0) = 1.0;
      v.segment(1, len - 1) = work.col(j).tail(len - 1) / (alpha - beta);
    }
    work(j, j) = beta;
    work.col(j).tail(len - 1).setZero();
    if (tau == 0.0) continue;
    const auto vj = v.head(len);
    for (int c = j + 1; c < m; ++c) {  // H_j applied to the remaining columns
      const double s = tau * vj.dot(work.col(c).tail(len));
      work.col(c).tail(len) -= s * vj;
    }
    w.noalias() = q.rightCols(len) * vj;  // Q <- Q H_j
    w *= tau;
    q.rightCols(len).noalias() -= w * vj.transpose();
  }
  r1 = work.topRows(m);
}

}  // namespace mbb
