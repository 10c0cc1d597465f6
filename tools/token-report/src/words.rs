//! Word lists the corpus generators draw from, most frequent first.

/// Common English words, roughly by frequency.
pub const ENGLISH: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on", "not",
    "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they", "you", "were",
    "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when", "will", "would",
    "who", "so", "no", "she", "other", "its", "may", "these", "about", "than", "into", "them", "some", "time",
    "only", "new", "could", "also", "two", "first", "any", "like", "then", "what", "out", "over", "such", "our",
    "most", "after", "made", "many", "before", "must", "through", "back", "years", "where", "much", "your",
    "way", "well", "down", "should", "because", "each", "just", "those", "people", "how", "too", "little",
    "state", "good", "very", "make", "world", "still", "own", "see", "men", "work", "long", "get", "here",
    "between", "both", "life", "being", "under", "never", "day", "same", "another", "know", "while", "last",
    "might", "us", "great", "old", "year", "off", "come", "since", "against", "go", "came", "right", "used",
    "take", "three", "himself", "few", "house", "use", "during", "without", "again", "place", "around",
    "however", "home", "small", "found", "thought", "went", "say", "part", "once", "general", "high", "upon",
    "school", "every", "does", "got", "united", "left", "number", "course", "war", "until", "always", "away",
    "something", "fact", "though", "water", "less", "public", "put", "think", "almost", "hand", "enough",
    "far", "took", "head", "yet", "government", "system", "better", "set", "told", "nothing", "night", "end",
    "why", "called", "didn't", "eyes", "find", "going", "look", "asked", "later", "knew", "point", "next",
    "program", "city", "business", "give", "group", "toward", "young", "days", "let", "room", "president",
    "side", "social", "given", "present", "several", "order", "national", "possible", "rather", "second",
    "face", "per", "among", "form", "important", "often", "things", "looked", "early", "white", "case",
    "become", "large", "need", "big", "four", "within", "felt", "along", "children", "saw", "best", "church",
    "ever", "least", "power", "development", "light", "thing", "seemed", "family", "interest", "want",
    "members", "others", "mind", "country", "area", "done", "open", "service", "certain", "kind", "problem",
    "began", "different", "door", "thus", "help", "means", "sense", "whole", "matter", "perhaps", "itself",
    "york", "times", "law", "human", "line", "above", "name", "example", "action", "company", "local",
    "show", "whether", "five", "history", "gave", "either", "today", "act", "feet", "across", "taken",
    "past", "quite", "anything", "seen", "having", "death", "body", "experience", "half", "really", "week",
    "field", "words", "already", "information", "tell", "together", "college", "shall", "money", "period",
    "held", "keep", "sure", "probably", "free", "seems", "political", "real", "behind", "question", "air",
    "office", "making", "brought", "whose", "special", "major", "heard", "federal", "became", "study",
    "available", "known", "result", "street", "economic", "boy", "position", "reason", "change", "south",
    "board", "individual", "job", "society", "areas", "west", "close", "turn", "love", "community", "true",
    "court", "force", "full", "seem", "policy", "students", "methods", "evidence", "surface", "increase",
    "measurement", "particularly", "responsibility", "understanding", "approximately", "infrastructure",
    "implementation", "characteristics", "simultaneously", "notwithstanding", "reconsideration",
    "photosynthesis", "electromagnetic", "disproportionate", "counterproductive", "archaeological",
    "telecommunications", "thermodynamics", "incomprehensible", "Mediterranean", "Massachusetts",
    "Constantinople", "Schwarzschild", "quintessential", "sesquipedalian", "idiosyncratic",
];

/// Proper names and capitalised words that prose mixes in.
pub const NAMES: &[&str] = &[
    "London", "Paris", "Maria", "John", "Alice", "Robert", "Tokyo", "Berlin", "Chen", "Oliveira", "Nakamura",
    "Kowalski", "Fitzgerald", "Montgomery", "Ramanathan", "Okonkwo", "Haverford", "Llewellyn", "Zhangjiakou",
    "Wojciechowski", "Thibodeaux", "Amsterdam", "January", "October", "Monday", "Friday", "Europe", "Africa",
];

/// Words programmers build identifiers from.
pub const CODE_WORDS: &[&str] = &[
    "value", "index", "len", "buffer", "count", "line", "path", "name", "data", "result", "item", "key", "map",
    "list", "offset", "limit", "config", "state", "error", "node", "text", "start", "end", "size", "total",
    "file", "reader", "writer", "token", "window", "cursor", "column", "budget", "session", "request",
    "response", "handle", "context", "entry", "cache", "width", "height", "chars", "bytes", "input", "output",
    "parser", "builder", "options", "settings", "schema", "record", "field", "column", "row", "query", "filter",
    "pending", "remaining", "checkpoint", "decoder", "encoding", "scanner", "estimate", "density", "stream",
    "timeout", "retry", "attempt", "payload", "header", "manifest", "registry", "resolver", "iterator",
    "callback", "listener", "dispatcher", "serializer", "deserializer", "normalized", "canonical",
];

/// Rust and Python types and names.
pub const TYPE_WORDS: &[&str] = &[
    "Window", "Cursor", "Budget", "Session", "Request", "Response", "Config", "Error", "Reader", "Writer",
    "Decoder", "Scanner", "Index", "Entry", "Cache", "Estimator", "Meter", "Settings", "Source", "Path",
    "Buffer", "Token", "Handle", "Context", "Manifest", "Registry", "Record", "Schema", "Builder", "Options",
];

/// Chinese words and phrases (common vocabulary), most frequent first.
pub const CHINESE: &[&str] = &[
    "的", "是", "在", "了", "和", "有", "我们", "这个", "一个", "不", "他们", "可以", "中国", "时候", "没有",
    "已经", "因为", "所以", "但是", "如果", "问题", "工作", "发展", "社会", "经济", "人民", "国家", "政府",
    "企业", "市场", "技术", "研究", "系统", "数据", "文件", "用户", "程序", "服务", "网络", "信息", "管理",
    "需要", "进行", "通过", "使用", "提供", "包括", "表示", "认为", "知道", "觉得", "开始", "继续", "完成",
    "重要", "主要", "基本", "一般", "特别", "非常", "比较", "更加", "同时", "然后", "之后", "以前", "现在",
    "今天", "明天", "去年", "城市", "农村", "学校", "学生", "老师", "孩子", "家庭", "朋友", "医院", "医生",
    "环境", "保护", "能源", "气候", "变化", "影响", "结果", "原因", "方法", "过程", "条件", "标准", "质量",
    "安全", "健康", "文化", "历史", "传统", "现代", "科学", "教育", "艺术", "音乐", "电影", "书籍", "语言",
    "文字", "读者", "作者", "模型", "算法", "计算", "存储", "内存", "窗口", "光标", "预算", "字符", "令牌",
    "估计", "测量", "实际", "数量", "比例", "中位数", "最小值", "最大值", "长江", "黄河", "北京", "上海", "深圳",
    "杭州", "广州", "春天", "夏天", "秋天", "冬天", "山水", "风景", "旅游", "游客", "饮食", "茶叶", "丝绸",
    "瓷器", "书法", "诗歌", "哲学", "思想", "道德", "法律", "制度", "改革", "开放", "创新", "合作", "交流",
    "繁荣", "稳定", "和谐", "挑战", "机遇", "未来", "梦想", "努力", "奋斗", "坚持", "鼓励", "支持", "反对",
    "讨论", "会议", "报告", "决定", "计划", "目标", "任务", "责任", "义务", "权利", "自由", "平等", "公正",
    "饕餮", "魑魅魍魉", "龘", "彧", "赟", "翀", "鑫", "淼", "犇", "骉", "羴", "鱻", "麤", "靐",
];

/// Chinese punctuation.
pub const CHINESE_PUNCT: &[&str] = &["，", "，", "，", "。", "。", "、", "；", "：", "！", "？", "“", "”", "（", "）", "《", "》"];

/// Japanese words and phrases: kanji compounds, katakana loanwords.
pub const JAPANESE_WORDS: &[&str] = &[
    "日本", "東京", "大阪", "京都", "会社", "社員", "学生", "先生", "時間", "今日", "明日", "昨日", "世界",
    "問題", "仕事", "電話", "天気", "季節", "桜", "富士山", "新幹線", "駅", "電車", "料理", "寿司", "ラーメン",
    "コンピューター", "プログラム", "ファイル", "データ", "システム", "ネットワーク", "サーバー", "ユーザー",
    "インターフェース", "アプリケーション", "セキュリティ", "パフォーマンス", "テスト", "エラー", "メモリ",
    "ウィンドウ", "トークン", "カーソル", "見積もり", "文字", "行", "列", "読み込み", "書き込み", "設定",
    "環境", "開発", "運用", "管理", "情報", "技術", "研究", "経済", "政治", "文化", "歴史", "言葉", "漢字",
    "平仮名", "片仮名", "家族", "友達", "子供", "両親", "病院", "図書館", "公園", "映画", "音楽", "写真",
    "旅行", "温泉", "神社", "お寺", "祭り", "伝統", "現代", "未来", "可能性", "重要性", "必要", "結果", "理由",
    "鬱", "顰蹙", "薔薇", "齟齬", "躊躇", "魑魅魍魉",
];

/// Japanese verbs, adjectives and endings written mostly in hiragana.
pub const JAPANESE_GRAMMAR: &[&str] = &[
    "は", "が", "を", "に", "で", "と", "の", "も", "から", "まで", "より", "へ", "や", "など",
    "です", "ます", "でした", "ました", "ません", "でしょう", "だと思います", "ということです", "について",
    "によって", "としては", "ために", "ながら", "けれども", "しかし", "そして", "それから", "ところで",
    "とても", "すこし", "たくさん", "いつも", "ときどき", "もう", "まだ", "すでに", "きっと", "たぶん",
    "する", "します", "しました", "している", "いる", "ある", "なる", "なります", "できる", "できます",
    "見る", "見ました", "行く", "行きました", "来る", "来ました", "食べる", "食べました", "書く", "読む",
    "使う", "使います", "考える", "考えています", "分かる", "分かりません", "楽しい", "美しい", "新しい",
    "古い", "大きい", "小さい", "難しい", "易しい", "面白い", "静かな", "有名な", "便利な", "大切な",
];
