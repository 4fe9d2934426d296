/**
 * The tensors that hold a row per vocabulary id, by name: the input token embedding (transformers' `embed_tokens`,
 * GPT-2's `wte`, Meta's `tok_embeddings`, BERT's `word_embeddings`, GPT-NeoX's `embed_in`, T5's `shared`, llama.cpp's
 * `token_embd`, Mamba's and Nemotron-H's `backbone.embeddings`, OPT's `model.decoder.embed_tokens`, Idefics3's and SmolVLM's `model.text_model.embed_tokens`, BERT's kin's `bert.embeddings.word_embeddings`,
 * ModernBERT's `model.embeddings.tok_embeddings`, CLIP's and SigLIP's `text_model.embeddings.token_embedding`, the
 * `token_embedding_table` of Karpathy's lecture GPT and the bare `token_embedding` of small hand-written models) under the prefixes
 * causal LMs and their multimodal wrappers use, and the output head. Packed
 * quantized containers of the embedding (`qweight`, `weight_packed`, `W_q`) match too.
 */
export const TOKEN_EMBEDDING_NAME =
  /^(?:(?:model\.|transformer\.|language_model\.model\.|model\.language_model\.|gpt_neox\.|model\.decoder\.|model\.text_model\.)?(?:embed_tokens|wte|tok_embeddings|word_embeddings|embed_in|shared|embeddings\.word_embeddings|token_embd|token_embedding_table|token_embedding)|backbone\.embeddings|[a-z_]+\.embeddings\.(?:word_embeddings|tok_embeddings|token_embedding))\.(?:weight|qweight|weight_packed|W_q)$/;

/**
 * The output head over the vocabulary. A masked-LM head's transform (RoBERTa's `lm_head.dense`, `lm_head.layer_norm`)
 * and its bias are not the head: its `lm_head.decoder` is, saved only when it is not the embedding.
 */
export const LM_HEAD_NAME =
  /^(?:lm_head|embed_out|output|language_model\.lm_head|model\.lm_head)\.(?!dense\.|layer_norm\.|(?:decoder\.)?bias$)/;

/**
 * An encoder's masked-LM head (BERT's `cls.predictions`, ALBERT's `predictions`, RoBERTa's `lm_head`, ELECTRA's
 * generator head, DistilBERT's `vocab_projector`): its decoder over the vocabulary is the token embedding unless saved.
 */
export const MASKED_LM_HEAD_NAME =
  /^(?:cls\.predictions|predictions|lm_head|generator_predictions|generator_lm_head|vocab_projector|vocab_transform)\./;
