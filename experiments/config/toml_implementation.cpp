// The TOML++ parser's one implementation unit in sanitizer builds (third_party/
// dependencies.cmake says why it is compiled here then); in other builds ablate links
// Debian's libtomlplusplus and this file is empty.
#ifdef ABLATE_TOML_COMPILED_HERE
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
#endif
