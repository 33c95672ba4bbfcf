#include "gpu_memory.h"

#include "ggml-backend.h"

namespace voxedge {

Napi::Value gpu_devices(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    Napi::Array devices = Napi::Array::New(env);
    uint32_t found = 0;
    // The backends are linked statically, so the registry already lists every device this build
    // has; integrated GPUs (host memory) and accelerators are left out: their "free" is system RAM.
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_GPU) {
            continue;
        }
        size_t free_bytes = 0;
        size_t total_bytes = 0;
        ggml_backend_dev_memory(dev, &free_bytes, &total_bytes);
        Napi::Object device = Napi::Object::New(env);
        device.Set("name", Napi::String::New(env, ggml_backend_dev_name(dev)));
        device.Set("description", Napi::String::New(env, ggml_backend_dev_description(dev)));
        // doubles hold byte counts exactly up to 2^53 (8 PiB)
        device.Set("freeBytes", Napi::Number::New(env, static_cast<double>(free_bytes)));
        device.Set("totalBytes", Napi::Number::New(env, static_cast<double>(total_bytes)));
        devices.Set(found++, device);
    }
    return devices;
}

} // namespace voxedge
