// The fuzz targets' main() where libFuzzer is not linked (the GCC Release build): runs
// each file named on the command line through LLVMFuzzerTestOneInput once — the corpus
// replay of run_fuzzer.sh (`replay` mode passes the seed corpus and every found input),
// so the optimised build that users run replays them too. Arguments starting with '-'
// are libFuzzer's flags and are ignored here. A crash or an abort fails the test; a
// clean pass prints how many inputs ran.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    if (path.rfind('-', 0) == 0) continue;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      return 1;
    }
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                          std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++ran;
  }
  std::printf("replayed %d inputs without a crash\n", ran);
  return 0;
}
