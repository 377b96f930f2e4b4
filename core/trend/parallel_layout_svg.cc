#include "trend/parallel_layout_svg.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "trend/parallel_layout.h"

namespace visprobe {
namespace {

constexpr double kInch = 72, kTitleFont = 14, kAxisFont = 12, kTickFont = 10, kLegendFont = 10, kCellFont = 9;
constexpr double kTick = 3.5, kPad = 3.5;

void AppendXml(std::string& out, std::string_view text) {
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab / newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t' || ch == '\n') out += ch;
    }
  }
}

// Coordinates with at most two decimals, without trailing zeros.
std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

// Width of a text in DejaVu Sans, estimated (no font metrics in the engine).
double TextWidth(std::string_view text, double font_size) { return 0.6 * font_size * static_cast<double>(text.size()); }

void Text(std::string& s, double x, double y, std::string_view text, const char* extra = "") {
  s += "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\"" + extra + ">";
  AppendXml(s, text);
  s += "</text>\n";
}

// Where everything goes, in points: the axes (plot_*), a cell's size, the legend and the drawing.
struct SvgFrame {
  int rows = 0, cols = 0;
  double label_w = 0;  // the widest row label
  double plot_x = 0, plot_y = 0, plot_w = 0, plot_h = 0, bottom = 0;
  double cw = 0, rh = 0;  // a cell's width and height
  double entry_h = kLegendFont * 1.5, handle_w = 2 * kLegendFont, handle_h = 0.7 * kLegendFont;
  double legend_x = 0, legend_y = 0, legend_w = 0, legend_h = 0;
  double width = 0, height = 0;
  // The centre of column x / row y (row 0 at the bottom).
  double px(double x) const { return plot_x + (x + 0.5) * cw; }
  double py(double y) const { return plot_y + plot_h - (y + 0.5) * rh; }
};

constexpr const char* kLegendTitle = "Model Copies";

// Sizes follow the reference figure (§11.5) in points (72 per inch): the axes with their labels
// take clamp(2·vpp, 6, 60) × clamp(0.5·rows, 4, 100) inches, the legend sits at their right, and
// the drawing is cut to what is drawn (or grows for a tall legend), as matplotlib's tight
// bounding box does.
SvgFrame LayOut(const ParallelLayout& l) {
  SvgFrame f;
  f.rows = static_cast<int>(l.rows.size());
  f.cols = l.vpp;
  double fig_w = std::min(60.0, std::max(6.0, 2.0 * f.cols)) * kInch;
  double fig_h = std::min(100.0, std::max(4.0, 0.5 * f.rows)) * kInch;
  for (const auto& r : l.rows) f.label_w = std::max(f.label_w, TextWidth(r.label, kTickFont));

  double left = 10 + kAxisFont + 8 + f.label_w + kPad + kTick;
  double top = 10 + kTitleFont + 20;
  f.bottom = kTick + kPad + kTickFont * 1.2 + 8 + kAxisFont * 1.2 + 10;
  f.plot_x = left;
  f.plot_y = top;
  f.plot_w = std::max(fig_w - left - 10, 60.0);
  f.plot_h = std::max(fig_h - top - f.bottom, 60.0);
  // The title is centred on the axes; a title wider than them moves the drawing right.
  double title_w = TextWidth(l.title, kTitleFont);
  f.plot_x += std::max(0.0, 10 - (f.plot_x + f.plot_w / 2 - title_w / 2));
  f.cw = f.plot_w / f.cols;
  f.rh = f.plot_h / f.rows;

  // Legend: title, one entry per copy, centred vertically at the right of the axes.
  double legend_text_w = TextWidth(kLegendTitle, kLegendFont);
  for (int c = 0; c < l.dp; ++c)
    legend_text_w =
        std::max(legend_text_w, f.handle_w + 0.8 * kLegendFont + TextWidth("Model Copy " + std::to_string(c + 1), kLegendFont));
  f.legend_w = legend_text_w + 2 * 0.4 * kLegendFont + 2;
  f.legend_h = kLegendFont * 1.6 + l.dp * f.entry_h + 0.8 * kLegendFont;
  f.legend_x = f.plot_x + f.plot_w * 1.02;
  f.legend_y = f.plot_y + f.plot_h / 2 - f.legend_h / 2;
  double shift = f.legend_y < 10 ? 10 - f.legend_y : 0;  // a tall legend pushes the drawing down
  f.plot_y += shift;
  f.legend_y += shift;

  f.width = std::max(f.legend_x + f.legend_w, f.plot_x + f.plot_w / 2 + title_w / 2) + 10;  // tight
  f.height = std::max(f.plot_y + f.plot_h + f.bottom, f.legend_y + f.legend_h + 10);
  return f;
}

// Cells: 0.9 × 0.9 squares centred on (column, row), coloured by model copy; then the dashed grid
// at the ticks (matplotlib draws it above the patches, below the texts).
void AppendCellsAndGrid(std::string& s, const ParallelLayout& l, const SvgFrame& f) {
  s += "<g class=\"cells\" stroke=\"#ffffff\" stroke-width=\"1\" fill-opacity=\"0.8\" stroke-opacity=\"0.8\">\n";
  for (const auto& r : l.rows) {
    const std::string& color = l.copy_colors[static_cast<size_t>(r.model_copy)];
    for (int v = 0; v < f.cols; ++v)
      s += "<rect x=\"" + Num(f.px(v - 0.45)) + "\" y=\"" + Num(f.py(r.index + 0.45)) + "\" width=\"" + Num(0.9 * f.cw) +
           "\" height=\"" + Num(0.9 * f.rh) + "\" fill=\"" + color + "\"/>\n";
  }
  s += "</g>\n";

  s += "<g class=\"grid\" stroke=\"#b0b0b0\" stroke-width=\"0.8\" stroke-opacity=\"0.3\" stroke-dasharray=\"2.96,1.28\">\n";
  for (int v = 0; v < f.cols; ++v)
    s += "<line x1=\"" + Num(f.px(v)) + "\" y1=\"" + Num(f.plot_y) + "\" x2=\"" + Num(f.px(v)) + "\" y2=\"" +
         Num(f.plot_y + f.plot_h) + "\"/>\n";
  for (int r = 0; r < f.rows; ++r)
    s += "<line x1=\"" + Num(f.plot_x) + "\" y1=\"" + Num(f.py(r)) + "\" x2=\"" + Num(f.plot_x + f.plot_w) + "\" y2=\"" +
         Num(f.py(r)) + "\"/>\n";
  s += "</g>\n";
}

// Cell texts on a translucent white box.
void AppendCellTexts(std::string& s, const ParallelLayout& l, const SvgFrame& f) {
  s += "<g class=\"cell-boxes\" fill=\"#ffffff\" fill-opacity=\"0.3\" stroke=\"#000000\" stroke-opacity=\"0.3\" "
       "stroke-width=\"0.5\">\n";
  for (const auto& r : l.rows)
    for (int v = 0; v < f.cols; ++v) {
      const std::string& t = r.cells[static_cast<size_t>(v)];
      if (t.empty()) continue;
      double w = TextWidth(t, kCellFont) + 2, h = kCellFont * 1.2 + 2;
      s += "<rect x=\"" + Num(f.px(v) - w / 2) + "\" y=\"" + Num(f.py(r.index) - h / 2) + "\" width=\"" + Num(w) +
           "\" height=\"" + Num(h) + "\"/>\n";
    }
  s += "</g>\n";
  s += "<g class=\"cell-texts\" font-size=\"9\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"#000000\">\n";
  for (const auto& r : l.rows)
    for (int v = 0; v < f.cols; ++v) {
      const std::string& t = r.cells[static_cast<size_t>(v)];
      if (!t.empty()) Text(s, f.px(v), f.py(r.index), t);
    }
  s += "</g>\n";
}

// Axes frame, ticks and tick labels, the axis labels and the title.
void AppendAxes(std::string& s, const ParallelLayout& l, const SvgFrame& f) {
  s += "<rect class=\"frame\" x=\"" + Num(f.plot_x) + "\" y=\"" + Num(f.plot_y) + "\" width=\"" + Num(f.plot_w) + "\" height=\"" +
       Num(f.plot_h) + "\" fill=\"none\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n";
  s += "<g class=\"ticks\" stroke=\"#000000\" stroke-width=\"0.8\">\n";
  for (int v = 0; v < f.cols; ++v)
    s += "<line x1=\"" + Num(f.px(v)) + "\" y1=\"" + Num(f.plot_y + f.plot_h) + "\" x2=\"" + Num(f.px(v)) + "\" y2=\"" +
         Num(f.plot_y + f.plot_h + kTick) + "\"/>\n";
  for (int r = 0; r < f.rows; ++r)
    s += "<line x1=\"" + Num(f.plot_x - kTick) + "\" y1=\"" + Num(f.py(r)) + "\" x2=\"" + Num(f.plot_x) + "\" y2=\"" +
         Num(f.py(r)) + "\"/>\n";
  s += "</g>\n";
  s += "<g class=\"xticklabels\" font-size=\"10\" text-anchor=\"middle\" dominant-baseline=\"hanging\">\n";
  for (int v = 0; v < f.cols; ++v) Text(s, f.px(v), f.plot_y + f.plot_h + kTick + kPad, "Stage " + std::to_string(v));
  s += "</g>\n";
  s += "<g class=\"yticklabels\" font-size=\"10\" text-anchor=\"end\" dominant-baseline=\"central\">\n";
  for (const auto& r : l.rows) Text(s, f.plot_x - kTick - kPad, f.py(r.index), r.label);
  s += "</g>\n";

  double xlabel_y = f.plot_y + f.plot_h + kTick + kPad + kTickFont * 1.2 + 8;
  Text(s, f.plot_x + f.plot_w / 2, xlabel_y, "Virtual Pipeline Stage",
       " class=\"xlabel\" font-size=\"12\" text-anchor=\"middle\" dominant-baseline=\"hanging\"");
  double ylabel_x = f.plot_x - kTick - kPad - f.label_w - 8;
  std::string rot = " class=\"ylabel\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 " + Num(ylabel_x) + " " +
                    Num(f.plot_y + f.plot_h / 2) + ")\"";
  Text(s, ylabel_x, f.plot_y + f.plot_h / 2, "TP Group", rot.c_str());
  Text(s, f.plot_x + f.plot_w / 2, f.plot_y - 20, l.title, " class=\"title\" font-size=\"14\" text-anchor=\"middle\"");
}

// The legend "Model Copies": a colour handle and a name per copy.
void AppendLegend(std::string& s, const ParallelLayout& l, const SvgFrame& f) {
  s += "<g class=\"legend\" font-size=\"10\">\n";
  s += "<rect x=\"" + Num(f.legend_x) + "\" y=\"" + Num(f.legend_y) + "\" width=\"" + Num(f.legend_w) + "\" height=\"" +
       Num(f.legend_h) + "\" rx=\"2\" fill=\"#ffffff\" fill-opacity=\"0.8\" stroke=\"#cccccc\" stroke-width=\"0.8\"/>\n";
  Text(s, f.legend_x + f.legend_w / 2, f.legend_y + 0.4 * kLegendFont + kLegendFont, kLegendTitle, " text-anchor=\"middle\"");
  for (int c = 0; c < l.dp; ++c) {
    double ey = f.legend_y + kLegendFont * 1.6 + c * f.entry_h + f.entry_h / 2;
    double hx = f.legend_x + 0.4 * kLegendFont + 1;
    s += "<rect x=\"" + Num(hx) + "\" y=\"" + Num(ey - f.handle_h / 2) + "\" width=\"" + Num(f.handle_w) + "\" height=\"" +
         Num(f.handle_h) + "\" fill=\"" + l.copy_colors[static_cast<size_t>(c)] + "\" fill-opacity=\"0.8\"/>\n";
    Text(s, hx + f.handle_w + 0.8 * kLegendFont, ey, "Model Copy " + std::to_string(c + 1), " dominant-baseline=\"central\"");
  }
  s += "</g>\n";
}

}  // namespace

std::string ParallelLayoutToSvg(const ParallelLayout& l) {
  const SvgFrame f = LayOut(l);
  std::string s;
  s.reserve(4096 + static_cast<size_t>(l.cell_count) * 260 + static_cast<size_t>(f.rows + l.dp) * 200);
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + Num(f.width) + "\" height=\"" + Num(f.height) +
       "\" viewBox=\"0 0 " + Num(f.width) + " " + Num(f.height) + "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  s += "<title>";
  AppendXml(s, l.title);
  s += "</title>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + Num(f.width) + "\" height=\"" + Num(f.height) + "\" fill=\"#ffffff\"/>\n";
  AppendCellsAndGrid(s, l, f);
  AppendCellTexts(s, l, f);
  AppendAxes(s, l, f);
  AppendLegend(s, l, f);
  s += "</svg>\n";
  return s;
}

}  // namespace visprobe
