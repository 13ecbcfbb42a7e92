#pragma once
// The gnuplot side of the report plots: literals for the scripts we write, and running
// gnuplot itself. Scripts refer to their data and outputs by paths relative to the
// plots directory, and gnuplot is started there, so a user can copy a run anywhere,
// edit a .gp file and rerun it with `cd plots && gnuplot val_loss.gp`.
#include <stdexcept>
#include <string>
#include <vector>

namespace ablate::experiments {

// A single-quoted gnuplot string literal: only '' is special inside single quotes, so
// backslashes and double quotes from user text stay literal. Newlines (which would
// end the command) become spaces. Underscores and ^ are only special in enhanced text
// mode, which every script turns off (see gp_terminals).
std::string gp_string(const std::string& text);

// Several lines of text as one double-quoted gnuplot string (lines joined by "\n"),
// for titles with a second line; backslashes and double quotes stay literal.
std::string gp_lines(const std::vector<std::string>& lines);

// Text safe to put after '#' on one line of a data file or script.
std::string gp_comment(const std::string& text);

// The shortest decimal that reads back as the same double, independent of the C++
// and C locales: data files are byte-identical for the same inputs.
std::string gp_number(double value);

// Plot commands `body` rendered twice: to <stem>.svg and then to <stem>.png, both
// width × height pixels with enhanced text off.
std::string gp_render(const std::string& stem, int width, int height, const std::string& body);
// The same for bodies that cannot be replotted (a multiplot replots only its last
// panel): the body is written once per terminal.
std::string gp_render_each(const std::string& stem, int width, int height, const std::string& body);

// Runs `gnuplot <script>` with `dir` as its working directory, stdin from /dev/null
// and stderr captured. Throws std::runtime_error naming the script, with gnuplot's
// stderr, if gnuplot cannot be started, is killed or exits non-zero.
// `definitions` (gnuplot commands, e.g. "x=1; y=2") run before the script (-e).
// A missing gnuplot throws GnuplotMissing: the report then skips the plots with one
// warning (plots are optional; their data and scripts are still written).
struct GnuplotMissing : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void run_gnuplot(const std::string& dir, const std::string& script,
                 const std::string& definitions = "");
// Renders <stem>.gp (written by gp_render or gp_render_each) in `dir` to <stem>.svg and
// <stem>.png atomically: gnuplot writes temporary files, which must be complete images
// before they are renamed into place. Throws std::runtime_error naming the file
// otherwise (gnuplot itself exits 0 when a write fails, e.g. on a full disk).
void render_plot(const std::string& dir, const std::string& stem);

}  // namespace ablate::experiments
