#include "experiments/data/run_program.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace ablate::experiments {

ProgramResult run_program(const std::vector<std::string>& argv, const std::string& working_dir) {
  // The output goes to a temporary file, not a pipe: nothing can block on a full pipe.
  char log_name[] = "/tmp/ablate-program-XXXXXX";
  const int log = mkstemp(log_name);
  if (log < 0) return {127, "cannot create a temporary file for the output of " + argv.at(0)};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, log, 1);
  posix_spawn_file_actions_adddup2(&actions, log, 2);
  if (!working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ProgramResult r;
  if (spawned != 0) {
    r.exit_status = 127;
    r.output = argv[0] + ": cannot be started (not installed?)";
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream in(log_name);
    std::ostringstream text;
    text << in.rdbuf();
    r.output = text.str();
  }
  close(log);
  std::remove(log_name);
  return r;
}

bool program_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace ablate::experiments
