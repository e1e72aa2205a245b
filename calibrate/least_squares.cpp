#include "calibrate/least_squares.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace npu::calibrate {

namespace {

using Vector = std::vector<double>;

double half_squared_norm(const Vector& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return 0.5 * s;
}

// Solves A x = b for a small symmetric positive definite A (Gaussian elimination with partial
// pivoting); false when singular.
bool solve(std::vector<Vector> a, Vector b, Vector& x) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    if (std::fabs(a[pivot][col]) < 1e-300) return false;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r][col] / a[col][col];
      for (std::size_t c = col; c < n; ++c) a[r][c] -= f * a[col][c];
      b[r] -= f * b[col];
    }
  }
  x.assign(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t c = i + 1; c < n; ++c) s -= a[i][c] * x[c];
    x[i] = s / a[i][i];
  }
  return std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
}

}  // namespace

LeastSquaresResult least_squares(const LeastSquaresProblem& p) {
  const std::size_t n = p.start.size();
  auto clamp = [&](Vector x) {
    for (std::size_t j = 0; j < n; ++j) x[j] = std::clamp(x[j], p.lower[j], p.upper[j]);
    return p.snap ? p.snap(x) : x;
  };
  LeastSquaresResult out;
  Vector x = clamp(p.start);
  Vector r = p.residuals(x);
  double cost = half_squared_norm(r);
  double lambda = 1e-3;
  for (int it = 0; it < p.max_iterations; ++it) {
    out.iterations = it + 1;
    if (cost < 1e-18) {
      out.converged = true;
      out.reason = "the residuals vanished";
      break;
    }
    // Forward differences, stepping inwards at an upper bound.
    std::vector<Vector> jac(r.size(), Vector(n, 0.0));
    for (std::size_t j = 0; j < n; ++j) {
      Vector xs = x;
      xs[j] = x[j] + p.difference_step[j] <= p.upper[j] ? x[j] + p.difference_step[j] : x[j] - p.difference_step[j];
      xs = clamp(xs);
      const double h = xs[j] - x[j];
      if (h == 0) continue;
      const Vector rs = p.residuals(xs);
      for (std::size_t i = 0; i < r.size(); ++i) jac[i][j] = (rs[i] - r[i]) / h;
    }
    Vector g(n, 0.0);
    std::vector<Vector> jtj(n, Vector(n, 0.0));
    for (std::size_t i = 0; i < r.size(); ++i)
      for (std::size_t a = 0; a < n; ++a) {
        g[a] += jac[i][a] * r[i];
        for (std::size_t b = 0; b < n; ++b) jtj[a][b] += jac[i][a] * jac[i][b];
      }
    // A parameter on a bound whose gradient points out of the box stays there for this step
    // (an active constraint): solving for it too and clamping afterwards would bend the other
    // parameters' step towards an unreachable point, and the fit would creep along the bound.
    std::vector<bool> held(n, false);
    for (std::size_t a = 0; a < n; ++a)
      held[a] = (x[a] <= p.lower[a] && g[a] > 0) || (x[a] >= p.upper[a] && g[a] < 0);
    bool accepted = false;
    Vector next;
    double next_cost = cost;
    for (int attempt = 0; attempt < 12 && !accepted; ++attempt) {
      auto m = jtj;
      for (std::size_t a = 0; a < n; ++a) m[a][a] += lambda * std::max(jtj[a][a], 1e-12);
      Vector neg_g(n);
      for (std::size_t a = 0; a < n; ++a) neg_g[a] = held[a] ? 0.0 : -g[a];
      for (std::size_t a = 0; a < n; ++a)
        if (held[a])
          for (std::size_t b = 0; b < n; ++b) m[a][b] = m[b][a] = a == b ? 1.0 : 0.0;
      Vector step;
      if (!solve(m, neg_g, step)) {
        lambda *= 10;
        continue;
      }
      Vector candidate(n);
      for (std::size_t a = 0; a < n; ++a) candidate[a] = x[a] + step[a];
      candidate = clamp(candidate);
      if (candidate == x) break;  // the projected step goes nowhere: a minimum on the box
      const Vector rc = p.residuals(candidate);
      const double c = half_squared_norm(rc);
      if (c < cost) {
        accepted = true;
        next = candidate;
        next_cost = c;
        r = rc;
        lambda = std::max(lambda / 5, 1e-9);
      } else {
        lambda *= 8;
      }
    }
    if (!accepted) {
      out.converged = true;
      out.reason = "no step lowers the error further";
      break;
    }
    double moved = 0;
    for (std::size_t a = 0; a < n; ++a) moved = std::max(moved, std::fabs(next[a] - x[a]));
    const double fell = (cost - next_cost) / std::max(cost, 1e-300);
    x = next;
    cost = next_cost;
    if (moved < p.step_tolerance || fell < p.cost_tolerance) {
      out.converged = true;
      out.reason = moved < p.step_tolerance ? "the parameters stopped moving" : "the error stopped falling";
      break;
    }
  }
  if (!out.converged)
    out.reason = fmt::format("still improving after {} iterations", p.max_iterations);
  out.x = x;
  out.cost = cost;
  return out;
}

}  // namespace npu::calibrate
