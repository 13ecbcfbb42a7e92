#pragma once
// Text inside report.html's markup (report_html.h): what a run contains never becomes
// markup of its own.
#include <string>

namespace ablate::experiments {

// &, <, >, " and ' as entities: safe in element text and quoted attribute values.
std::string escape_html(const std::string& s);

}  // namespace ablate::experiments
