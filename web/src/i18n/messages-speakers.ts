/** The strings of the Speakers page (enrolled voices), in English and Vietnamese (see messages.ts). */
export const enSpeakers = {
  "nav.speakers": "Speakers",
  "speakers.title": "Speakers",
  "speakers.intro":
    "Enrol the voices you often transcribe. A transcription that names them (known_speakers) shows who spoke by name.",
  "speakers.name": "Name",
  "speakers.file": "Recording of the voice (2–30 s, one person speaking)",
  "speakers.enrol": "Enrol",
  "speakers.enrolling": "Enrolling…",
  "speakers.enrolled": "{name} is enrolled.",
  "speakers.empty": "No speakers enrolled yet.",
  "speakers.list": "Enrolled speakers",
  "speakers.details": "{duration} · enrolled {date}",
  "speakers.unknownLength": "length checked on first use",
  "speakers.deleteSpeaker": "Delete this speaker",
  "speakers.loading": "Loading…",
  "speakers.enrolVoice": "Enrol this voice as {name}",
  "speakers.enrolVoiceUnnamed": "Name this speaker to enrol their voice",
  "speakers.noVoiceClip": "Too little of this voice alone (at least 2 s) to enrol it.",
  "speakers.enrolledVoice": "Enrolled as {name}, from {from} to {to}.",
} as const;

export const viSpeakers: Record<keyof typeof enSpeakers, string> = {
  "nav.speakers": "Người nói",
  "speakers.title": "Người nói",
  "speakers.intro":
    "Đăng ký giọng của những người bạn thường phiên âm. Bản phiên âm gọi tên họ (known_speakers) sẽ cho biết ai đã nói.",
  "speakers.name": "Tên",
  "speakers.file": "Bản ghi giọng nói (2–30 giây, một người nói)",
  "speakers.enrol": "Đăng ký",
  "speakers.enrolling": "Đang đăng ký…",
  "speakers.enrolled": "Đã đăng ký {name}.",
  "speakers.empty": "Chưa có người nói nào được đăng ký.",
  "speakers.list": "Người nói đã đăng ký",
  "speakers.details": "{duration} · đăng ký {date}",
  "speakers.unknownLength": "độ dài được kiểm tra khi dùng lần đầu",
  "speakers.deleteSpeaker": "Xoá người nói này",
  "speakers.loading": "Đang tải…",
  "speakers.enrolVoice": "Đăng ký giọng này với tên {name}",
  "speakers.enrolVoiceUnnamed": "Đặt tên cho người nói để đăng ký giọng",
  "speakers.noVoiceClip": "Giọng này nói riêng quá ít (cần ít nhất 2 giây) để đăng ký.",
  "speakers.enrolledVoice": "Đã đăng ký {name}, từ {from} đến {to}.",
};
