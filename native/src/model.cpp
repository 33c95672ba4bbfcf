#include "model.h"

#include "model_check.h"

#include <exception>
#include <new>

namespace voxedge {

namespace {

class load_worker : public Napi::AsyncWorker {
public:
    load_worker(Napi::Env env, std::string path, whisper_context_params cparams, int states)
        : Napi::AsyncWorker(env, "voxedge.load"), deferred(Napi::Promise::Deferred::New(env)),
          path(std::move(path)), cparams(cparams), states(states) {}

    ~load_worker() override {
        if (ctx != nullptr) {
            whisper_free(ctx);
        }
    }

    Napi::Promise promise() const { return deferred.Promise(); }

protected:
    void Execute() override {
        log_clear_last_error();
        err = check_model_file(path);
        if (!err.ok()) {
            return;
        }
        try {
            ctx = whisper_init_from_file_with_params_no_state(path.c_str(), cparams);
            if (ctx == nullptr) {
                err = { "ERR_MODEL_LOAD", with_last_error("whisper could not load '" + path + "'") };
            }
        } catch (const std::bad_alloc &) {
            err = { "ERR_OUT_OF_MEMORY", "out of memory loading '" + path + "'" };
        } catch (const std::exception & e) {
            err = { "ERR_MODEL_LOAD", "loading '" + path + "' failed: " + e.what() };
        }
    }

    void OnOK() override {
        Napi::Env env = Env();
        if (!err.ok()) {
            deferred.Reject(make_error(env, err.code, err.message).Value());
            return;
        }
        whisper_context * owned = ctx;
        ctx = nullptr;  // the Model owns it from here, even if the constructor throws
        Napi::Object model = get_addon_data(env).model_ctor.New(
                { Napi::External<whisper_context>::New(env, owned), Napi::Number::New(env, states) });
        deferred.Resolve(model);
    }

    void OnError(const Napi::Error & e) override { deferred.Reject(e.Value()); }

private:
    Napi::Promise::Deferred deferred;
    std::string             path;
    whisper_context_params  cparams;
    int                     states;
    whisper_context *       ctx = nullptr;
    op_error                err;
};

// A stream takes an idle pooled state or makes one; whisper_init_state reserves compute buffers
// (tens of ms on big models): keep it off the JS thread.
class stream_worker : public Napi::AsyncWorker {
public:
    stream_worker(Napi::Env env, pool_ptr pool)
        : Napi::AsyncWorker(env, "voxedge.stream"), deferred(Napi::Promise::Deferred::New(env)),
          core(std::make_shared<stream_core>()) {
        core->pool = std::move(pool);
    }

    Napi::Promise promise() const { return deferred.Promise(); }

protected:
    void Execute() override { core->dec = core->pool->detach(err); }

    void OnOK() override {
        Napi::Env env = Env();
        if (!err.ok()) {
            deferred.Reject(make_error(env, err.code, err.message).Value());
            return;
        }
        auto ext = Napi::External<std::shared_ptr<stream_core>>::New(env, &core);
        deferred.Resolve(get_addon_data(env).stream_ctor.New({ ext }));
    }

    void OnError(const Napi::Error & e) override { deferred.Reject(e.Value()); }

private:
    Napi::Promise::Deferred      deferred;
    std::shared_ptr<stream_core> core;
    op_error                     err;
};

int state_capacity_arg(Napi::Env env, Napi::Value v) {
    if (!v.IsNumber()) {
        throw make_type_error(env, "ERR_INVALID_ARG", "concurrency must be an integer 1..256");
    }
    const int n = v.As<Napi::Number>().Int32Value();
    if (n < 1 || n > 256) {
        throw make_type_error(env, "ERR_INVALID_ARG", "concurrency must be an integer 1..256");
    }
    return n;
}

} // namespace

Napi::Value load_model(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!info[0].IsString()) {
        throw make_type_error(env, "ERR_INVALID_ARG", "model path must be a string");
    }
    whisper_context_params cparams = whisper_context_default_params();
    int states = 1;
    if (info[1].IsObject()) {
        Napi::Object o = info[1].As<Napi::Object>();
        cparams.use_gpu    = o.Get("gpu").ToBoolean().Value();
        cparams.flash_attn = !o.Has("flashAttn") || o.Get("flashAttn").ToBoolean().Value();
        if (o.Has("concurrency")) {
            states = state_capacity_arg(env, o.Get("concurrency"));
        }
    }
    auto * worker = new load_worker(env, info[0].As<Napi::String>().Utf8Value(), cparams, states);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Function model_wrap::define(Napi::Env env) {
    return DefineClass(env, "Model", {
        InstanceMethod<&model_wrap::info>("info"),
        InstanceMethod<&model_wrap::transcribe>("transcribe"),
        InstanceMethod<&model_wrap::create_stream>("createStream"),
        InstanceMethod<&model_wrap::state_stats>("stateStats"),
        InstanceMethod<&model_wrap::dispose>("dispose"),
    });
}

model_wrap::model_wrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<model_wrap>(info) {
    if (!info[0].IsExternal()) {
        throw make_type_error(info.Env(), "ERR_INVALID_ARG", "use loadModel() to create a model");
    }
    context_ptr ctx = make_context_ptr(info[0].As<Napi::External<whisper_context>>().Data());
    pool = std::make_shared<state_pool>(std::move(ctx), info[1].IsNumber() ? state_capacity_arg(info.Env(), info[1]) : 1);
}

whisper_context * model_wrap::require_ctx(Napi::Env env) const {
    if (!pool) {
        throw make_error(env, "ERR_MODEL_DISPOSED", "model has been disposed");
    }
    return pool->context();
}

Napi::Value model_wrap::info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    whisper_context * c = require_ctx(env);
    Napi::Object o = Napi::Object::New(env);
    o.Set("type", whisper_model_type_readable(c));
    o.Set("multilingual", whisper_is_multilingual(c) != 0);
    o.Set("nVocab", whisper_model_n_vocab(c));
    o.Set("nAudioCtx", whisper_model_n_audio_ctx(c));
    o.Set("nAudioState", whisper_model_n_audio_state(c));
    o.Set("nAudioHead", whisper_model_n_audio_head(c));
    o.Set("nAudioLayer", whisper_model_n_audio_layer(c));
    o.Set("nTextCtx", whisper_model_n_text_ctx(c));
    o.Set("nTextState", whisper_model_n_text_state(c));
    o.Set("nTextHead", whisper_model_n_text_head(c));
    o.Set("nTextLayer", whisper_model_n_text_layer(c));
    o.Set("nMels", whisper_model_n_mels(c));
    o.Set("ftype", whisper_model_ftype(c));
    o.Set("whisperVersion", whisper_version());
    return o;
}

Napi::Value model_wrap::transcribe(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    whisper_context * c = require_ctx(env);
    pcm_view pcm = view_pcm(env, info[0]);
    const Napi::Object opts = info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
    decode_params params = parse_decode_params(env, opts, c);
    auto flag = control_wrap::flag_of(env, info[2]);
    return start_decode(env, pool, nullptr, std::move(pcm), std::move(params), std::move(flag), info[3]);
}

Napi::Value model_wrap::create_stream(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    require_ctx(env);
    auto * worker = new stream_worker(env, pool);
    Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
}

Napi::Value model_wrap::state_stats(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    require_ctx(env);
    const pool_stats st = pool->stats();
    Napi::Object o = Napi::Object::New(env);
    o.Set("created", static_cast<double>(st.created));
    o.Set("reused", static_cast<double>(st.reused));
    o.Set("live", st.live);
    o.Set("idle", st.idle);
    o.Set("peak", st.peak);
    o.Set("capacity", st.capacity);
    return o;
}

Napi::Value model_wrap::dispose(const Napi::CallbackInfo & info) {
    pool.reset();  // in-flight decodes and open streams hold their own reference
    return info.Env().Undefined();
}

Napi::Function stream_wrap::define(Napi::Env env) {
    return DefineClass(env, "Stream", {
        InstanceMethod<&stream_wrap::decode>("decode"),
        InstanceAccessor<&stream_wrap::busy>("busy"),
        InstanceMethod<&stream_wrap::dispose>("dispose"),
    });
}

stream_wrap::stream_wrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<stream_wrap>(info) {
    if (!info[0].IsExternal()) {
        throw make_type_error(info.Env(), "ERR_INVALID_ARG", "use model.createStream() to create a stream");
    }
    core = *info[0].As<Napi::External<std::shared_ptr<stream_core>>>().Data();
}

Napi::Value stream_wrap::decode(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!core) {
        throw make_error(env, "ERR_STREAM_DISPOSED", "stream has been disposed");
    }
    pcm_view pcm = view_pcm(env, info[0]);
    const Napi::Object opts = info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
    decode_params params = parse_decode_params(env, opts, core->pool->context());
    auto flag = control_wrap::flag_of(env, info[2]);
    bool expected = false;
    if (!core->busy.compare_exchange_strong(expected, true)) {
        throw make_error(env, "ERR_STREAM_BUSY", "stream is already decoding; await the previous decode()");
    }
    try {
        return start_decode(env, core->pool, core, std::move(pcm), std::move(params), std::move(flag), info[3]);
    } catch (...) {
        core->busy.store(false);
        throw;
    }
}

Napi::Value stream_wrap::busy(const Napi::CallbackInfo & info) {
    return Napi::Boolean::New(info.Env(), core && core->busy.load());
}

Napi::Value stream_wrap::dispose(const Napi::CallbackInfo & info) {
    core.reset();  // a decode in flight keeps the state alive until it finishes
    return info.Env().Undefined();
}

} // namespace voxedge
