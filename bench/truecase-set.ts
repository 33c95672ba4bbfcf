/**
 * Vietnamese speech-transcript sentences with their correct casing, for `npm run bench -- truecase`
 * and the truecase tests. Written for this set (not taken from a corpus); each kind is a group so a
 * report can say where the rules win or lose. Generic words before a name stay lower case ("tỉnh
 * Nghệ An", "thành phố Hà Nội", "quận Ba Đình"), as Vietnamese orthography writes them.
 */

export interface CasedSentence {
  kind: "place" | "person" | "organisation" | "plain" | "pronoun" | "ambiguous";
  text: string;
  /** Written after the rules were, and first scored without changing them to fit. */
  heldOut?: true;
}

const sentences = (kind: CasedSentence["kind"], texts: string[], heldOut = false): CasedSentence[] =>
  texts.map((text) => ({ kind, text, ...(heldOut && { heldOut: true as const }) }));

export const TRUECASE_SET: readonly CasedSentence[] = [
  ...sentences("place", [
    "Tôi sống ở Hà Nội từ năm hai nghìn mười lăm.",
    "Cuối tuần này cả nhà mình đi Đà Nẵng rồi ghé Hội An.",
    "Chuyến bay từ thành phố Hồ Chí Minh ra Phú Quốc bị hoãn hai tiếng.",
    "Quê ngoại tôi ở huyện Diễn Châu, tỉnh Nghệ An.",
    "Mùa này Sa Pa lạnh lắm, nhớ mang áo ấm nhé.",
    "Anh ấy vừa chuyển công tác từ Hải Phòng về Quảng Ninh.",
    "Giá đất ở quận Cầu Giấy tăng nhanh hơn ở Long Biên.",
    "Sáng mai đoàn sẽ xuất phát từ Cần Thơ đi Cà Mau.",
    "Đà Lạt và Nha Trang vẫn là hai điểm du lịch được chọn nhiều nhất.",
    "Bão số ba đang tiến vào vùng biển Thanh Hóa và Nghệ An.",
    "Tôi học đại học ở Huế bốn năm.",
    "Hàng hóa từ Bình Dương và Đồng Nai xuất khẩu sang Nhật Bản và Hàn Quốc.",
    "Nhà chị ấy ở gần chợ Bến Thành, quận một, Sài Gòn.",
    "Năm ngoái tôi đi công tác ở Trung Quốc, Thái Lan và Singapore.",
    "Đường từ Lào Cai lên Sa Pa đang sửa nên đi chậm.",
    "Lũ ở đồng bằng sông Cửu Long năm nay về sớm.",
  ]),
  ...sentences("person", [
    "Hôm qua tôi gặp anh Nam ở quán cà phê.",
    "Chị Lan ơi, em gửi chị tài liệu rồi nhé.",
    "Ông Nguyễn Văn An là giám đốc công ty này.",
    "Thầy Trần Minh Đức dạy môn toán rất hay.",
    "Bà Phạm Thị Hoa năm nay đã tám mươi tuổi.",
    "Cô Mai dặn cả lớp làm bài tập trước thứ hai.",
    "Chú Tư bán hàng ở đầu hẻm lâu lắm rồi.",
    "Em Hùng hỏi bao giờ thì có kết quả.",
    "Bác Ba nói sáng mai trời sẽ mưa.",
    "Tôi vừa nói chuyện điện thoại với chị Ngọc Anh.",
    "Anh Tuấn và chị Hương sẽ cưới vào tháng sau.",
    "Bài hát này do nhạc sĩ Trịnh Công Sơn sáng tác.",
    "Chủ tịch Hồ Chí Minh đọc bản tuyên ngôn độc lập năm bốn lăm.",
    "Cầu thủ Nguyễn Quang Hải ghi bàn ở phút thứ chín mươi.",
    "Ông Lê Văn Tám là nhân vật trong sách giáo khoa.",
    "Cảm ơn anh Dũng đã giúp em chuyển nhà.",
  ]),
  ...sentences("organisation", [
    "UBND phường vừa thông báo lịch cắt điện tuần sau.",
    "Hội An được UNESCO công nhận là di sản văn hóa thế giới.",
    "Các nước ASEAN họp thượng đỉnh tại Hà Nội.",
    "Giá xăng ở TP.HCM giảm năm trăm đồng từ chiều nay.",
    "Bộ Y tế khuyến cáo người dân tiêm vắc xin phòng cúm.",
    "Tôi đang làm việc cho FPT ở Đà Nẵng.",
    "Kỳ thi tốt nghiệp THPT năm nay có hơn một triệu thí sinh.",
    "Theo WHO, mỗi người nên ngủ đủ bảy tiếng một đêm.",
    "Bản tin thời sự của VTV phát lúc bảy giờ tối.",
    "Quốc hội đã thông qua luật đất đai sửa đổi.",
  ]),
  ...sentences("plain", [
    "Hôm nay trời đẹp quá, mình đi dạo một chút nhé.",
    "Bạn có thể nói chậm lại một chút được không?",
    "Tôi nghĩ chúng ta nên bắt đầu cuộc họp ngay bây giờ.",
    "Giá rau ngoài chợ dạo này tăng nhiều quá.",
    "Nếu mưa thì mình hoãn buổi dã ngoại sang tuần sau.",
    "Cái máy này dùng được ba năm rồi mà vẫn chạy tốt.",
    "Con nhớ làm bài tập xong rồi mới được chơi.",
    "Mọi người giữ trật tự để nghe hướng dẫn.",
    "Chúng tôi mong muốn một thế giới hòa bình.",
    "Cuộc sống ở nông thôn yên bình hơn ở thành phố.",
    "Cô ấy thường đi học bằng xe buýt.",
    "Ăn xong nhớ rửa bát và lau bàn giúp mẹ.",
  ]),
  ...sentences("pronoun", [
    "Anh ấy nói sẽ đến muộn mười phút.",
    "Cô giáo khen cả lớp hôm nay học rất chăm.",
    "Chị em mình lâu lắm rồi mới gặp nhau.",
    "Ông bà tôi sống ở quê với chú thím.",
    "Em học xong bài rồi, anh kiểm tra giúp em nhé.",
    "Anh hiểu ý em rồi, để anh tính.",
    "Chú ý, tàu sắp vào ga.",
    "Bác sĩ dặn bà phải uống thuốc đúng giờ.",
    "Anh cần gì cứ nói với em.",
    "Em thương anh nhiều lắm.",
    "Anh em trong nhóm ai cũng cố gắng.",
    "Cô đơn quá thì gọi cho chị nhé.",
  ]),
  ...sentences("ambiguous", [
    "Bố tôi quê ở tỉnh Hòa Bình.",
    "Nó cao bằng anh rồi đấy.",
    "Em trai tôi đi bộ đội ở Cao Bằng.",
    "Tuổi thanh xuân trôi qua nhanh lắm.",
    "Văn phòng công ty đặt ở quận Thanh Xuân.",
    "Từ Sơn La về đây mất cả ngày.",
    "Tôi học tiếng Anh và tiếng Pháp từ nhỏ.",
  ]),
  // held out: written once the rules were done, kept whatever they scored
  ...sentences(
    "place",
    [
      "Mẹ tôi vừa từ Quảng Ngãi ra Hà Nội khám bệnh.",
      "Cà phê Buôn Ma Thuột nổi tiếng khắp cả nước.",
      "Đoạn cao tốc qua Vĩnh Long đã thông xe.",
      "Hè này tụi mình đi Quy Nhơn hay Phan Thiết?",
      "Anh ấy làm ở khu công nghiệp Bắc Ninh.",
    ],
    true,
  ),
  ...sentences(
    "person",
    [
      "Chị Thảo bảo chiều nay họp lúc ba giờ.",
      "Ông Võ Văn Kiệt từng là thủ tướng.",
      "Cho em gặp anh Long phòng kế toán ạ.",
      "Thầy Minh nói bài kiểm tra dời sang thứ sáu.",
      "Cô Hạnh ơi, con nộp bài rồi ạ.",
    ],
    true,
  ),
  ...sentences(
    "pronoun",
    [
      "Anh thấy chỗ này đẹp không?",
      "Em có nhớ anh không?",
      "Bà nội tôi năm nay chín mươi tuổi.",
      "Chị biết rồi, em đừng lo.",
      "Ông nói với cháu là ông mệt.",
      "Anh tưởng em đi rồi chứ.",
      "Em gái tôi học lớp ba.",
      "Cô dạy chúng tôi môn văn.",
    ],
    true,
  ),
  ...sentences(
    "plain",
    [
      "Ngày mai anh đi làm sớm nhé.",
      "Chúng tôi sẽ tăng cường kiểm tra an toàn thực phẩm.",
      "Hồ sơ này phải nộp trước ngày mười lăm.",
      "Phạm vi dự án mở rộng ra toàn thành phố.",
      "Bảo vệ môi trường là trách nhiệm của mọi người.",
    ],
    true,
  ),
];
