#include "report/roofline.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace npu::report {

double Roofline::attainable_tops(double macs_per_byte) const {
  // bytes/cycle x MACs/byte = MACs/cycle; x 2 ops x cycles/s = ops/s
  const double macs_per_cycle = std::min(peak_macs_per_cycle, macs_per_byte * ddr_bytes_per_cycle);
  return 2.0 * macs_per_cycle * clock_mhz * 1e6 / 1e12;
}

Roofline roofline_of(const HardwareConfig& config) {
  Roofline r;
  r.peak_macs_per_cycle = static_cast<double>(config.total_macs());
  r.clock_mhz = config.clock.frequency_mhz;
  r.ddr_gbps = config.ddr.bandwidth_gbps * (1.0 - config.ddr.other_agents_share);
  r.ddr_bytes_per_cycle = r.ddr_gbps * 1e3 / r.clock_mhz;  // GB/s = 1e3 bytes/us; / cycles per us
  r.peak_tops = config.peak_tops();
  return r;
}

std::string roofline_bound(const Roofline& roof, std::uint64_t macs, std::uint64_t ddr_bytes) {
  if (macs == 0 || ddr_bytes == 0) return "-";
  const double intensity = static_cast<double>(macs) / static_cast<double>(ddr_bytes);
  return intensity < roof.ridge_macs_per_byte() ? "memory" : "compute";
}

namespace {

// Log axis covering [lo, hi] in whole decades, mapped onto [0, cells).
struct LogAxis {
  double lo_decade = 0, hi_decade = 1;
  int cells = 1;
  LogAxis(double lo, double hi, int n) : cells(n) {
    lo_decade = std::floor(std::log10(lo));
    hi_decade = std::ceil(std::log10(hi));
    if (hi_decade <= lo_decade) hi_decade = lo_decade + 1;
  }
  int cell(double v) const {
    const double f = (std::log10(v) - lo_decade) / (hi_decade - lo_decade);
    return std::clamp(static_cast<int>(std::floor(f * cells)), 0, cells - 1);
  }
  double value(int c) const {  // the value at the middle of cell c
    return std::pow(10.0, lo_decade + (c + 0.5) / cells * (hi_decade - lo_decade));
  }
};

// Decade labels: 0.01 .. 1000 as plain numbers, beyond that as 1e<exponent>.
std::string compact(double v) {
  const int exponent = static_cast<int>(std::lround(std::log10(v)));
  if (exponent >= -2 && exponent <= 3) return fmt::format("{:g}", std::pow(10.0, exponent));
  return fmt::format("1e{}", exponent);
}

}  // namespace

std::string ascii_roofline(const Roofline& roof, const std::vector<RooflinePoint>& points, int width, int height) {
  const double ridge = roof.ridge_macs_per_byte();
  if (ridge <= 0 || roof.peak_tops <= 0) return "";
  double x_lo = ridge / 100, x_hi = ridge * 10, y_lo = roof.peak_tops / 1000, y_hi = roof.peak_tops;
  for (const auto& p : points) {
    if (p.macs_per_byte > 0) x_lo = std::min(x_lo, p.macs_per_byte), x_hi = std::max(x_hi, p.macs_per_byte);
    if (p.achieved_tops > 0) y_lo = std::min(y_lo, p.achieved_tops);
  }
  const LogAxis x(x_lo, x_hi, width), y(y_lo, y_hi * 1.0001, height);
  std::vector<std::string> grid(static_cast<std::size_t>(height), std::string(static_cast<std::size_t>(width), ' '));
  auto put = [&](int col, int row_from_bottom, char ch) {
    grid[static_cast<std::size_t>(height - 1 - row_from_bottom)][static_cast<std::size_t>(col)] = ch;
  };
  const int ridge_col = x.cell(ridge);
  for (int c = 0; c < width; ++c) {
    const double top = roof.attainable_tops(x.value(c));
    if (top < std::pow(10.0, y.lo_decade)) continue;
    put(c, y.cell(top), c < ridge_col ? '/' : '-');
  }
  for (int r = 0; r < y.cell(roof.peak_tops); ++r) put(ridge_col, r, '|');
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.macs_per_byte <= 0 || p.achieved_tops <= 0) continue;
    put(x.cell(p.macs_per_byte), y.cell(p.achieved_tops), static_cast<char>(i < 26 ? 'A' + i : '*'));
  }
  std::string s;
  for (int r = 0; r < height; ++r) {
    std::string label;
    const int from_bottom = height - 1 - r;
    if (from_bottom == height - 1) label = compact(std::pow(10.0, y.hi_decade));
    if (from_bottom == 0) label = compact(std::pow(10.0, y.lo_decade));
    if (r == height / 2) label = "TOPS";
    s += fmt::format("{:>7} |{}\n", label, grid[static_cast<std::size_t>(r)]);
  }
  s += fmt::format("{:>7} +{}\n", "", std::string(static_cast<std::size_t>(width), '-'));
  std::string axis(static_cast<std::size_t>(width) + 16, ' ');
  for (double d = x.lo_decade; d <= x.hi_decade; ++d) {
    const std::string t = compact(std::pow(10.0, d));
    const int col = static_cast<int>(std::lround((d - x.lo_decade) / (x.hi_decade - x.lo_decade) * width));
    const std::size_t at = std::min(static_cast<std::size_t>(col + 9), axis.size() - 1);
    for (std::size_t k = 0; k < t.size() && at + k < axis.size(); ++k) axis[at + k] = t[k];
  }
  while (!axis.empty() && axis.back() == ' ') axis.pop_back();
  s += axis + "\n";
  s += fmt::format("{:>9}arithmetic intensity, MACs per DDR byte (log); ridge '|' at {:.1f}\n", "", ridge);
  return s;
}

}  // namespace npu::report
