// Module entry: the binding surface declared in native/addon-types.ts.
#include "gpu_memory.h"
#include "model.h"

namespace voxedge {

namespace {

Napi::Value set_log_level(const Napi::CallbackInfo & info) {
    if (!info[0].IsNumber()) {
        throw make_type_error(info.Env(), "ERR_INVALID_ARG", "log level must be a number 0..4");
    }
    log_set_level(info[0].As<Napi::Number>().Int32Value());
    return info.Env().Undefined();
}

Napi::Value get_log_level(const Napi::CallbackInfo & info) {
    return Napi::Number::New(info.Env(), log_get_level());
}

Napi::Value version(const Napi::CallbackInfo & info) {
    return Napi::String::New(info.Env(), whisper_version());
}

Napi::Value system_info(const Napi::CallbackInfo & info) {
    return Napi::String::New(info.Env(), whisper_print_system_info());
}

// Same names whisper_lang_id accepts, without the error it logs for unknown ones.
Napi::Value is_language(const Napi::CallbackInfo & info) {
    bool known = false;
    if (info[0].IsString()) {
        const std::string lang = info[0].As<Napi::String>().Utf8Value();
        for (int id = 0; id <= whisper_lang_max_id() && !known; id++) {
            known = lang == whisper_lang_str(id) || lang == whisper_lang_str_full(id);
        }
    }
    return Napi::Boolean::New(info.Env(), known);
}

} // namespace

Napi::Object init(Napi::Env env, Napi::Object exports) {
    log_install();

    auto * data = new addon_data();
    env.SetInstanceData(data);

    Napi::Function model   = model_wrap::define(env);
    Napi::Function stream  = stream_wrap::define(env);
    Napi::Function control = control_wrap::define(env);
    data->model_ctor   = Napi::Persistent(model);
    data->stream_ctor  = Napi::Persistent(stream);
    data->control_ctor = Napi::Persistent(control);

    exports.Set("loadModel", Napi::Function::New(env, load_model, "loadModel"));
    exports.Set("setLogLevel", Napi::Function::New(env, set_log_level, "setLogLevel"));
    exports.Set("getLogLevel", Napi::Function::New(env, get_log_level, "getLogLevel"));
    exports.Set("version", Napi::Function::New(env, version, "version"));
    exports.Set("systemInfo", Napi::Function::New(env, system_info, "systemInfo"));
    exports.Set("isLanguage", Napi::Function::New(env, is_language, "isLanguage"));
    exports.Set("gpuDevices", Napi::Function::New(env, gpu_devices, "gpuDevices"));
    exports.Set("DecodeControl", control);
    return exports;
}

} // namespace voxedge

// NODE_API_MODULE pastes the name into an identifier, so it needs an unqualified function
static Napi::Object voxedge_init(Napi::Env env, Napi::Object exports) {
    return voxedge::init(env, exports);
}

NODE_API_MODULE(voxedge_whisper, voxedge_init)
