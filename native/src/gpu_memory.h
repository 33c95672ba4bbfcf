// Free and total memory of the GPU devices ggml was built with, for the node's health report.
#pragma once

#include <napi.h>

namespace voxedge {

// gpuDevices(): [{ name, description, freeBytes, totalBytes }] for every ggml backend device of type
// GPU (dedicated memory); [] in a CPU-only build. Synchronous: the backends answer from the driver.
Napi::Value gpu_devices(const Napi::CallbackInfo & info);

} // namespace voxedge
