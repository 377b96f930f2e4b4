// The tb_config texts of a compare run: the tool tips (§13.5) and the node colours (§9.9) of each
// compare mode.
#include "compare/compare_config.h"

#include "base/pyfmt.h"
#include "db/colour_legend.h"

namespace visprobe {

std::string ToolTipJson(CompareMode m) {
  // Meanings of §13.5 (the reference's texts are Chinese; byte equality is not required).
  switch (m) {
    case CompareMode::kSummary:
      return "{\"Max diff\": \"The difference between the maximum of the NPU and the bench statistics\", "
             "\"Min diff\": \"The difference between the minimum of the NPU and the bench statistics\", "
             "\"Mean diff\": \"The difference between the mean of the NPU and the bench statistics\", "
             "\"L2norm diff\": \"The difference between the L2 norm of the NPU and the bench statistics\"}";
    case CompareMode::kMd5: return "{\"md5\": \"CRC-32 value of the data, used to check whether two data are identical\"}";
    default:
      return "{\"One Thousandth Err Ratio\": \"Share of elements whose relative error is below one thousandth; "
             "the closer to 1 the better\", "
             "\"Five Thousandths Err Ratio\": \"Share of elements whose relative error is below five thousandths; "
             "the closer to 1 the better\", "
             "\"Cosine\": \"Cosine similarity; the closer to 1 the better, above 0.99 is acceptable; NaN when a "
             "tensor is all zero\", "
             "\"MaxAbsErr\": \"Maximum absolute error; the closer to 0 the better, below 0.001 is acceptable\", "
             "\"MaxRelativeErr\": \"Maximum relative error; the closer to 0 the better; inf or NaN is normal when "
             "the data contains 0 or NaN\"}";
  }
}

std::string NodeColorsJson(CompareMode m) {
  std::string unmatched;
  {
    std::string d;
    AppendJsonString(d, "\u6bd4\u5bf9\u8fc7\u7a0b\u4e2d\u8282\u70b9\u672a\u5339\u914d\u4e0a");
    unmatched = "\"" + DefaultColourLegend().unmatched + "\": {\"value\": [], \"description\": " + d +
                ", \"accuracy_level\": \"unmatched node\"}";
  }
  if (m == CompareMode::kStructure) return "{" + unmatched + "}";
  std::string pass_desc, bad_desc;
  if (m == CompareMode::kMd5) {
    pass_desc =
        "\u4e0e\u6807\u6746\u76f8\u6bd4, \u6b64\u8282\u70b9\u6240\u6709\u8f93\u5165\u8f93\u51fa\u7684md5\u503c\u76f8\u540c";
    bad_desc =
        "\u4e0e\u6807\u6746\u76f8\u6bd4, \u6b64\u8282\u70b9\u4efb\u610f\u8f93\u5165\u8f93\u51fa\u7684md5\u503c\u4e0d\u540c";
  } else if (m == CompareMode::kSummary) {
    pass_desc = bad_desc =
        "\u6b64\u8282\u70b9\u6240\u6709\u8f93\u5165\u8f93\u51fa\u7684\u7edf\u8ba1\u91cf\u8bef\u5dee, "
        "\u989c\u8272\u8d8a\u6df1\u4ee3\u8868\u8c03\u8bd5\u4fa7\u4e0e\u6807\u6746\u4fa7\u7684\u504f\u5dee\u8d8a\u5927";
  } else {
    pass_desc = bad_desc =
        "\u6b64\u8282\u70b9\u6240\u6709\u8f93\u5165\u8f93\u51fa\u7684 tensor \u8bef\u5dee, "
        "\u989c\u8272\u8d8a\u6df1\u4ee3\u8868\u8c03\u8bd5\u4fa7\u4e0e\u6807\u6746\u4fa7\u7684\u504f\u5dee\u8d8a\u5927";
  }
  // The buckets of the declaration (db/colour_legend.json), with the mode's descriptions.
  std::string out = "{";
  for (const LegendBucket& b : DefaultColourLegend().buckets) {
    out += "\"" + b.colour + "\": {\"value\": " + b.range_json + ", \"description\": ";
    AppendJsonString(out, b.level == "pass" ? pass_desc : bad_desc);
    out += ", \"accuracy_level\": \"" + b.level + "\"}, ";
  }
  return out + unmatched + "}";
}

}  // namespace visprobe
