// A plugin whose component name is taken: `ablate` must refuse it (exit 2), naming
// the axis and the name, instead of terminating in its static initializer.
#include "nn/norms/norm.h"

ABLATE_REGISTER(ablate::nn::norm_registry(),
                {"layer",
                 "a second 'layer' norm",
                 {},
                 [](const ablate::nn::Options&, const ablate::nn::BuildContext&)
                     -> std::unique_ptr<ablate::nn::Norm> { return nullptr; }});
