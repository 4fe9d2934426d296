/**
 * Texts that tell two tokenizers apart, for the compare view's "Try the probe texts": each exercises what a
 * conversion or a fine-tune gets wrong — the pre-tokenizer's cuts (digit runs, contractions in either case, runs of
 * spaces and line breaks, punctuation), normalization (accents, full-width forms, ligatures), scripts without
 * spaces, byte fallback (emoji, a ZWJ sequence), code, and special tokens written in the text.
 */
export const PROBE_TEXTS: readonly string[] = [
  'Hello world! Tokenizers split "unbelievable" text into pieces.',
  "I'm sure you're right; THEY'VE said it'll work, won't it? She'd DON'T.",
  'Numbers: 7, 42, 123, 2048, 12345678, 3.14159, 1,000,000 and ٣٤٥.',
  '  Two leading spaces,   three inside and two trailing  ',
  'Line one\nLine two\n\n\tA tab, then\n\n\n   spaces after breaks',
  "def main():\n    return {'a': [1, 2, 3]}  # code, x_1 += f(y)",
  'naïve café résumé Ünïcödé coöperate',
  'ＦＵＬＬ－ｗｉｄｔｈ ｆｏｒｍｓ, the ﬁ ligature, ① and ㎏',
  '中文：你好，世界。日本語のテキストです。한국어 텍스트.',
  'Привет, мир! Γειά σου κόσμε! مرحبا بالعالم! नमस्ते दुनिया',
  'Emoji 🙂🚀👍🏽 and a family 👨‍👩‍👧 joined by ZWJ',
  '<|im_start|>user\nHi<|im_end|> <s>[INST] hi [/INST]</s> <|begin_of_text|><|eot_id|>',
];
