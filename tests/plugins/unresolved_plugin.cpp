// A plugin that uses a function no `ablate` defines (as one built against another
// tree might): loading it must fail with the dynamic linker's message, exit 2.
#include "nn/norms/norm.h"

namespace ablate::nn {
double function_ablate_does_not_have(double);
}

ABLATE_REGISTER(ablate::nn::norm_registry(),
                {"unresolved",
                 "never registered: the module does not load",
                 {},
                 [](const ablate::nn::Options&,
                    const ablate::nn::BuildContext&) -> std::unique_ptr<ablate::nn::Norm> {
                   return ablate::nn::function_ablate_does_not_have(1.0) > 0 ? nullptr : nullptr;
                 }});
