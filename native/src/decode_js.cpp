// JS <-> C++ conversions for decodes: options in, Float32Array in, result out, abort control.
#include "decode.h"

#include <cmath>

namespace voxedge {

namespace {

[[noreturn]] void bad_option(Napi::Env env, const char * key, const char * expected) {
    throw make_type_error(env, "ERR_INVALID_OPTION", std::string("option '") + key + "' must be " + expected);
}

bool get_bool(Napi::Env env, Napi::Object o, const char * key, bool def) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined()) {
        return def;
    }
    if (!v.IsBoolean()) {
        bad_option(env, key, "a boolean");
    }
    return v.As<Napi::Boolean>().Value();
}

double get_number(Napi::Env env, Napi::Object o, const char * key, double def, double lo, double hi) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined()) {
        return def;
    }
    if (!v.IsNumber()) {
        bad_option(env, key, "a number");
    }
    const double d = v.As<Napi::Number>().DoubleValue();
    if (!std::isfinite(d) || d < lo || d > hi) {
        bad_option(env, key, ("a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]").c_str());
    }
    return d;
}

int get_int(Napi::Env env, Napi::Object o, const char * key, int def, int lo, int hi) {
    const double d = get_number(env, o, key, def, lo, hi);
    if (d != std::floor(d)) {
        bad_option(env, key, "an integer");
    }
    return static_cast<int>(d);
}

std::string get_string(Napi::Env env, Napi::Object o, const char * key, const std::string & def) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined()) {
        return def;
    }
    if (!v.IsString()) {
        bad_option(env, key, "a string");
    }
    return v.As<Napi::String>().Utf8Value();
}

} // namespace

decode_params parse_decode_params(Napi::Env env, Napi::Object o, whisper_context * ctx) {
    decode_params p;
    p.language         = get_string(env, o, "language", p.language);
    p.translate        = get_bool(env, o, "translate", p.translate);
    p.initial_prompt   = get_string(env, o, "initialPrompt", p.initial_prompt);
    p.timestamps       = get_bool(env, o, "timestamps", p.timestamps);
    p.token_timestamps = get_bool(env, o, "tokenTimestamps", p.token_timestamps);
    p.max_tokens       = get_int(env, o, "maxTokens", p.max_tokens, 0, 1 << 16);
    p.temperature      = static_cast<float>(get_number(env, o, "temperature", p.temperature, 0.0, 1.0));
    p.temperature_inc  = static_cast<float>(get_number(env, o, "temperatureInc", p.temperature_inc, 0.0, 1.0));
    p.no_speech_thold  = static_cast<float>(get_number(env, o, "noSpeechThreshold", p.no_speech_thold, 0.0, 1.0));
    p.logprob_thold    = static_cast<float>(get_number(env, o, "logprobThreshold", p.logprob_thold, -1e9, 0.0));
    p.entropy_thold    = static_cast<float>(get_number(env, o, "entropyThreshold", p.entropy_thold, 0.0, 1e9));
    p.suppress_nst     = get_bool(env, o, "suppressNonSpeech", p.suppress_nst);
    p.no_context       = get_bool(env, o, "noContext", p.no_context);
    p.single_segment   = get_bool(env, o, "singleSegment", p.single_segment);
    p.n_threads        = get_int(env, o, "threads", p.n_threads, 1, 256);
    p.poll_level       = get_int(env, o, "pollLevel", p.poll_level, 0, 100);
    p.beam_size        = get_int(env, o, "beamSize", p.beam_size, 1, 8);  // WHISPER_MAX_DECODERS
    p.best_of          = get_int(env, o, "bestOf", p.best_of, 1, 8);
    p.audio_ctx        = get_int(env, o, "audioCtx", p.audio_ctx, 0, whisper_n_audio_ctx(ctx));

    if (p.language.empty()) {
        p.language = "auto";
    }
    const Napi::Value among = o.Get("detectLanguages");
    if (!among.IsUndefined() && !among.IsNull()) {
        if (!among.IsArray()) {
            throw make_error(env, "ERR_INVALID_OPTION", "detectLanguages must be an array of language codes");
        }
        const Napi::Array list = among.As<Napi::Array>();
        for (uint32_t i = 0; i < list.Length(); i++) {
            const Napi::Value item = list.Get(i);
            const int id = item.IsString() ? whisper_lang_id(item.As<Napi::String>().Utf8Value().c_str()) : -1;
            if (id < 0) {
                throw make_error(env, "ERR_UNKNOWN_LANGUAGE", "detectLanguages holds an unknown language");
            }
            p.detect_among.push_back(id);
        }
    }
    // validated here, on the JS thread: whisper.cpp's own examples exit() on an unknown code
    if (p.language != "auto") {
        if (whisper_lang_id(p.language.c_str()) < 0) {
            throw make_error(env, "ERR_UNKNOWN_LANGUAGE", "unknown language '" + p.language + "'");
        }
        const std::string code = whisper_lang_str(whisper_lang_id(p.language.c_str()));
        if (!whisper_is_multilingual(ctx) && code != "en") {
            throw make_error(env, "ERR_UNKNOWN_LANGUAGE", "model is English-only; cannot decode '" + p.language + "'");
        }
    }
    return p;
}

pcm_view view_pcm(Napi::Env env, Napi::Value value) {
    if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
        throw make_type_error(env, "ERR_INVALID_AUDIO", "audio must be a Float32Array of 16 kHz mono samples");
    }
    Napi::Float32Array arr = value.As<Napi::Float32Array>();
    if (arr.ElementLength() == 0) {
        throw make_error(env, "ERR_EMPTY_AUDIO", "audio is empty");
    }
    if (arr.ElementLength() > static_cast<size_t>(INT32_MAX)) {
        throw make_error(env, "ERR_INVALID_AUDIO", "audio is too long");
    }
    pcm_view view;
    view.data = arr.Data();
    view.size = arr.ElementLength();
    view.keep = Napi::Persistent(value.As<Napi::Object>());
    return view;
}

Napi::Function control_wrap::define(Napi::Env env) {
    return DefineClass(env, "DecodeControl", {
        InstanceMethod<&control_wrap::abort>("abort"),
        InstanceAccessor<&control_wrap::aborted>("aborted"),
    });
}

std::shared_ptr<std::atomic<bool>> control_wrap::flag_of(Napi::Env env, Napi::Value value) {
    if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(get_addon_data(env).control_ctor.Value())) {
        throw make_type_error(env, "ERR_INVALID_ARG", "expected a DecodeControl");
    }
    return Unwrap(value.As<Napi::Object>())->flag;
}

control_wrap::control_wrap(const Napi::CallbackInfo & info)
    : Napi::ObjectWrap<control_wrap>(info), flag(std::make_shared<std::atomic<bool>>(false)) {}

Napi::Value control_wrap::abort(const Napi::CallbackInfo & info) {
    flag->store(true);
    return info.Env().Undefined();
}

Napi::Value control_wrap::aborted(const Napi::CallbackInfo & info) {
    return Napi::Boolean::New(info.Env(), flag->load());
}

namespace {

Napi::Object timings_to_js(Napi::Env env, const decode_timings & t) {
    const auto ms = [](int64_t us) { return static_cast<double>(us) / 1000.0; };
    const state_timings & w = t.whisper;
    Napi::Object o = Napi::Object::New(env);
    o.Set("stateMs", t.state_ms);
    o.Set("stateCreated", t.state_created);
    o.Set("totalMs", t.total_ms);
    o.Set("melMs", ms(w.mel_us));
    o.Set("encodeMs", ms(w.encode_us));
    o.Set("decodeMs", ms(w.decode_us));
    o.Set("batchdMs", ms(w.batchd_us));
    o.Set("promptMs", ms(w.prompt_us));
    o.Set("sampleMs", ms(w.sample_us));
    o.Set("encodes", w.n_encode);
    o.Set("decodes", w.n_decode);
    o.Set("batchDecodes", w.n_batchd);
    o.Set("prompts", w.n_prompt);
    o.Set("fallbacks", w.n_fail_p + w.n_fail_h);
    return o;
}

} // namespace

Napi::Value result_to_js(Napi::Env env, const decode_result & res) {
    Napi::Array segments = Napi::Array::New(env, res.segments.size());
    for (size_t i = 0; i < res.segments.size(); i++) {
        const segment_out & s = res.segments[i];
        Napi::Array tokens = Napi::Array::New(env, s.tokens.size());
        for (size_t j = 0; j < s.tokens.size(); j++) {
            const token_out & t = s.tokens[j];
            Napi::Object tok = Napi::Object::New(env);
            tok.Set("id", t.id);
            tok.Set("text", t.text);
            tok.Set("p", t.p);
            tok.Set("logprob", t.plog);
            // the token's own bytes: a character split across tokens is not valid UTF-8 in `text`
            tok.Set("bytes", Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t *>(t.text.data()), t.text.size()));
            if (res.token_timestamps) {
                tok.Set("t0", t.t0 * 0.01);
                tok.Set("t1", t.t1 * 0.01);
            }
            tokens.Set(j, tok);
        }
        Napi::Object seg = Napi::Object::New(env);
        seg.Set("t0", s.t0 * 0.01);
        seg.Set("t1", s.t1 * 0.01);
        seg.Set("text", s.text);
        seg.Set("noSpeechProb", s.no_speech_prob);
        seg.Set("tokens", tokens);
        segments.Set(i, seg);
    }
    Napi::Object out = Napi::Object::New(env);
    out.Set("language", res.language);
    out.Set("languageProbability", res.language_prob < 0 ? env.Null() : Napi::Number::New(env, res.language_prob));
    out.Set("segments", segments);
    out.Set("timings", timings_to_js(env, res.timings));
    return out;
}

} // namespace voxedge
