// Shared pieces of the voxedge whisper addon: error values, logging and per-env data.
#pragma once

#include "whisper.h"

#include <napi.h>

#include <memory>
#include <string>

namespace voxedge {

// The model weights are shared by every decode and stream; the last owner frees them, so a
// dispose() while decodes are in flight only drops the JS handle's reference.
using context_ptr = std::shared_ptr<whisper_context>;

context_ptr make_context_ptr(whisper_context * ctx);

// An error produced on a worker thread, turned into a JS Error with `code` on the main thread.
struct op_error {
    std::string code;
    std::string message;

    bool ok() const { return code.empty(); }
};

Napi::Error make_error     (Napi::Env env, const std::string & code, const std::string & message);
Napi::Error make_type_error(Napi::Env env, const std::string & code, const std::string & message);

// whisper/ggml log routing. Level: 0 silent, 1 error, 2 warn, 3 info, 4 debug.
void        log_install();
void        log_set_level(int level);
int         log_get_level();
void        log_clear_last_error();
std::string log_last_error();       // last error line whisper logged on the calling thread
std::string with_last_error(const std::string & message);

// Constructors kept per env (worker_threads each get their own).
struct addon_data {
    Napi::FunctionReference model_ctor;
    Napi::FunctionReference stream_ctor;
    Napi::FunctionReference control_ctor;
};

addon_data & get_addon_data(Napi::Env env);

} // namespace voxedge
