// JS classes around a loaded model and a reusable decoding state.
#pragma once

#include "decode.h"

namespace voxedge {

// Loads the model on the libuv pool; resolves to a Model instance.
Napi::Value load_model(const Napi::CallbackInfo & info);

// Model: info(), transcribe(pcm, opts, control, onProgress?), createStream(), stateStats(), dispose(). Instances only come from load_model (the constructor takes the
// loaded context as an External and the state pool's capacity).
class model_wrap : public Napi::ObjectWrap<model_wrap> {
public:
    static Napi::Function define(Napi::Env env);

    explicit model_wrap(const Napi::CallbackInfo & info);

private:
    whisper_context * require_ctx(Napi::Env env) const;

    Napi::Value info(const Napi::CallbackInfo & info);
    Napi::Value transcribe(const Napi::CallbackInfo & info);
    Napi::Value create_stream(const Napi::CallbackInfo & info);
    Napi::Value state_stats(const Napi::CallbackInfo & info);
    Napi::Value dispose(const Napi::CallbackInfo & info);

    pool_ptr pool;  // owns the context; null once disposed
};

// Stream: decode(pcm, opts, control, onProgress?) on one whisper_state kept between calls; dispose().
class stream_wrap : public Napi::ObjectWrap<stream_wrap> {
public:
    static Napi::Function define(Napi::Env env);

    explicit stream_wrap(const Napi::CallbackInfo & info);

private:
    Napi::Value decode(const Napi::CallbackInfo & info);
    Napi::Value busy(const Napi::CallbackInfo & info);
    Napi::Value dispose(const Napi::CallbackInfo & info);

    std::shared_ptr<stream_core> core;
};

} // namespace voxedge
