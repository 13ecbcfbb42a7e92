// statsmodels: five of the classic series statsmodels ships as CSV, copied byte for
// byte (the forecast task's loader reads them as they are: time column, quoted
// headers, empty cells for missing values):
//   co2         weekly atmospheric CO2 at Mauna Loa, 1958–2001 (date,co2; gaps)
//   nile        annual flow of the Nile at Aswan, 1871–1970 (year,volume)
//   sunspots    yearly sunspot numbers, 1700–2008 (YEAR,SUNACTIVITY)
//   elec_equip  monthly euro-area electrical equipment orders, 1995–2016
//   macrodata   US quarterly macroeconomic series, 1959–2009 (year,quarter,realgdp,...)
// No split here: the forecast task splits a series in time.
#include <filesystem>
#include <stdexcept>

#include "experiments/data/datasets.h"
#include "experiments/io/atomic_file.h"

namespace ablate::experiments {

Conversion convert_statsmodels(const std::string& unpacked, const std::string& out) {
  const std::string root = unpacked + "/usr/lib/python3/dist-packages/statsmodels/datasets/";
  Conversion c;
  for (const char* name : {"co2", "nile", "sunspots", "elec_equip", "macrodata"}) {
    const std::string from = root + name + "/" + name + ".csv";
    if (!std::filesystem::exists(from))
      throw std::runtime_error(from + ": missing from the package");
    std::filesystem::copy_file(from, out + "/" + name + ".csv");
    c.files.push_back(std::string(name) + ".csv");
    long long lines = 0;
    for (char ch : read_file(from)) lines += ch == '\n';
    c.counts[std::string(name) + "_rows"] = lines - 1;  // after the header
  }
  return c;
}

}  // namespace ablate::experiments
