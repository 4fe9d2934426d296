/**
 * The tensors that hold a row per vocabulary id, by name: the input token embedding (transformers' `embed_tokens`,
 * GPT-2's `wte`, Meta's `tok_embeddings`, BERT's `word_embeddings`, GPT-NeoX's `embed_in`, T5's `shared`, llama.cpp's
 * `token_embd`, Mamba's and Nemotron-H's `backbone.embeddings`, OPT's `model.decoder.embed_tokens`, Idefics3's and SmolVLM's `model.text_model.embed_tokens`, BERT's kin's `bert.embeddings.word_embeddings`,
 * ModernBERT's `model.embeddings.tok_embeddings`) under the prefixes
 * causal LMs and their multimodal wrappers use, and the output head. Packed
 * quantized containers of the embedding (`qweight`, `weight_packed`, `W_q`) match too.
 */
export const TOKEN_EMBEDDING_NAME =
  /^(?:(?:model\.|transformer\.|language_model\.model\.|model\.language_model\.|gpt_neox\.|model\.decoder\.|model\.text_model\.)?(?:embed_tokens|wte|tok_embeddings|word_embeddings|embed_in|shared|embeddings\.word_embeddings|token_embd)|backbone\.embeddings|[a-z_]+\.embeddings\.(?:word|tok)_embeddings)\.(?:weight|qweight|weight_packed|W_q)$/;

export const LM_HEAD_NAME = /^(?:lm_head|embed_out|output|language_model\.lm_head|model\.lm_head)\./;
