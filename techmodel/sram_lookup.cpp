// Looking a scratchpad up in a technology table: the rules of configs/tech/README.md
// ("Intended use"), in one place.
#include <cmath>
#include <sstream>

#include "techmodel/tech_table.h"

namespace npu::tech {
namespace {

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The axis value nearest `want` in log scale (ties go to the larger), clamped to the ends.
int nearest_on_axis(const std::vector<int>& axis, int want) {
  int best = axis.front();
  double best_d = INFINITY;
  for (int v : axis) {
    const double d = std::fabs(std::log(static_cast<double>(v)) - std::log(static_cast<double>(want)));
    if (d <= best_d) best = v, best_d = d;
  }
  return best;
}

}  // namespace

double interpolate_log_log(const std::vector<double>& x, const std::vector<double>& y, double at) {
  // The present points around `at`: the last at or below it and the first above it.
  int lo = -1, hi = -1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(y[i])) continue;
    if (x[i] == at) return y[i];  // a grid point: the table's own number, not exp(log(v))
    if (x[i] < at) lo = static_cast<int>(i);
    if (x[i] > at && hi < 0) hi = static_cast<int>(i);
  }
  if (lo < 0 || hi < 0) return NAN;  // outside the present points: the caller decides
  const double t = (std::log(at) - std::log(x[lo])) / (std::log(x[hi]) - std::log(x[lo]));
  return std::exp(std::log(y[lo]) + t * (std::log(y[hi]) - std::log(y[lo])));
}

SramFigures sram_figures(const TechTable& table, double capacity_kib, int rw_ports, int banks, int port_bytes) {
  SramFigures f;
  const std::string where = table.path + ": sram";
  bool ports_on_axis = false;
  for (int p : table.rw_ports) ports_on_axis |= p == rw_ports;
  if (!ports_on_axis) throw TechTableError(where + ": no series with rw_ports " + std::to_string(rw_ports));
  if (!(capacity_kib > 0)) throw TechTableError(where + ": capacity must be positive");
  const double max_kib = table.capacity_kib.back(), min_kib = table.capacity_kib.front();
  if (capacity_kib > max_kib)
    throw TechTableError(where + ": " + number_text(capacity_kib) + " KiB is outside the table (" +
                         number_text(min_kib) + " to " + number_text(max_kib) + " KiB)");

  f.banks = nearest_on_axis(table.banks, banks);
  f.port_bytes = nearest_on_axis(table.port_bytes, port_bytes);
  if (f.banks != banks)
    f.notes.push_back("SRAM: " + std::to_string(banks) + " banks taken as " + std::to_string(f.banks) +
                      " (nearest in the table's banks axis)");
  if (f.port_bytes != port_bytes)
    f.notes.push_back("SRAM: " + std::to_string(port_bytes) + "-byte ports taken as " + std::to_string(f.port_bytes) +
                      " (nearest in the table's port_bytes axis)");
  const SramSeries* s = table.find_sram(rw_ports, f.banks, f.port_bytes);
  if (!s) throw TechTableError(where + ": no series for the scratchpad's ports, banks and port width");

  // Below the smallest capacity: its energy per byte, leakage and area shrunk with capacity.
  const double at = std::max(capacity_kib, min_kib), shrink = capacity_kib / at;
  if (shrink < 1)
    f.notes.push_back("SRAM: " + number_text(capacity_kib) + " KiB is below the table's smallest capacity (" +
                      number_text(min_kib) + " KiB): its energy per byte, leakage and area scaled by capacity");
  auto lookup = [&](const std::vector<double>& values, const char* field) {
    const double v = interpolate_log_log(table.capacity_kib, values, at);
    if (std::isnan(v))
      throw TechTableError(where + ": " + field + " has no value around " + number_text(at) + " KiB for rw_ports " +
                           std::to_string(rw_ports) + ", banks " + std::to_string(f.banks) + ", port_bytes " +
                           std::to_string(f.port_bytes) + " (CACTI failed there)");
    return v;
  };
  f.read_pj_per_byte = lookup(s->read_pj_per_byte, "read_pj_per_byte");
  f.write_pj_per_byte = lookup(s->write_pj_per_byte, "write_pj_per_byte");
  f.leakage_mw = lookup(s->leakage_mw, "leakage_mw") * shrink;
  f.area_mm2 = lookup(s->area_mm2, "area_mm2") * shrink;
  f.access_ns = lookup(s->access_ns, "access_ns");
  return f;
}

const DmaChannel& dma_channel_for(const TechTable& table, int width_bytes) {
  std::vector<int> widths;
  for (const auto& c : table.dma_channels) widths.push_back(c.width_bytes);
  const int w = nearest_on_axis(widths, width_bytes);
  for (const auto& c : table.dma_channels)
    if (c.width_bytes == w) return c;
  return table.dma_channels.front();
}

}  // namespace npu::tech
