// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "relu_net.hpp"

ARBO_PLUGIN_BEGIN("arbo-surrogate-relu-net", "0.1.0",
                  "NN+MILP: ReLU-network surrogate retrained every iteration, formulated as a MILP")
ARBO_COMPONENT(Surrogate, "relu_net", arbo::plugins::ReluNet,
               "Fully connected ReLU network on the one-hot encoding, Adam on z-scored targets "
               "from a fresh initialization every fit; formulates itself as a big-M MILP")
ARBO_PLUGIN_END()
