#pragma once
// What `ablate --help` and `ablate <command> --help` print besides the options: each
// command's usage line, what it does, its positional arguments and examples that run
// from the repository's root, and the exit statuses every command shares. One entry
// per command (command_help.cpp); docs/reference/commands.md's table of commands and
// its "Exit status" table say the same, and tests/experiments/cli_help_test.cpp holds them to it.
#include <string>
#include <vector>

namespace ablate::experiments::cli {

struct CommandHelp {
  const char* name;       // "run"
  const char* usage;      // "run FILE [KEY=VALUE ...] [options]"
  const char* summary;    // one or two lines for `ablate --help`
  const char* arguments;  // the positional arguments, one "NAME  what it is" a line
  const char* examples;   // command lines, each with a comment saying what it does
};

// Every command, in the order `ablate --help` lists them.
const std::vector<CommandHelp>& command_helps();
const CommandHelp& help_of(const std::string& command);

struct ExitStatus {
  int code;
  const char* meaning;
};

// The exit statuses of every command, as `ablate --help` lists them.
const std::vector<ExitStatus>& exit_statuses();

// An exit status of its own for a run directory another `ablate run` is writing:
// EX_TEMPFAIL of sysexits.h ("try again later"), which a job script can tell apart
// from a failed trial (1) and a bad file (2).
inline constexpr int kExitLocked = 75;

// The text `ablate --help` prints.
std::string overall_help();

// The text around a command's options in `ablate <command> --help`.
std::string help_head(const CommandHelp& help);
std::string help_tail(const CommandHelp& help);

}  // namespace ablate::experiments::cli
