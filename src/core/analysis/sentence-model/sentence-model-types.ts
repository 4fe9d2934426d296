/**
 * What a sentence-transformers folder says of the model it wraps: the modules its modules.json chains after the
 * transformer (pooling, dense projections, normalization), what one input becomes, and the model's settings.
 * Plain data, like every report section.
 */

/** What config_sentence_transformers.json's model_type names; SentenceTransformer when the file does not say. */
export type SentenceModelKind = 'SentenceTransformer' | 'CrossEncoder' | 'SparseEncoder' | 'other';

/** One module of modules.json, in order. */
export interface SentenceModule {
  /** Its class name without the package (`Pooling`, `Dense`, `Normalize`, `Transformer`, …). */
  type: string;
  /** Its folder relative to modules.json (`1_Pooling`); empty for the model beside modules.json. */
  path: string;
  /** One line on what it does, from its config ("mean of the token vectors", "384 → 256, tanh"). */
  detail: string | null;
  /** False when its config.json was expected and not among the files. */
  configRead: boolean;
}

export interface SentenceModelSection {
  kind: SentenceModelKind;
  /** model_type as written, when it is none of the known kinds. */
  kindName: string | null;
  /** The modules.json file, as the load names it. */
  modulesFile: string;
  modules: SentenceModule[];
  /** What encoding one input gives: a vector of `width` numbers, a sparse vector over the vocabulary, or scores. */
  output: {
    what: 'dense vector' | 'sparse vector' | 'scores';
    /** Its length; null when the configs do not tell. */
    width: number | null;
    /** Unit length (a Normalize module), so a dot product is the cosine. */
    normalized: boolean;
  };
  /** The pooling modes concatenated, in the order Pooling applies them; empty without a Pooling module. */
  poolingModes: string[];
  /** Tokens beyond this are cut off, and which file said it; null when no file does. */
  maxSequenceLength: { value: number; source: string } | null;
  /**
   * The similarity function the model was trained for (`cosine`, `dot`, …); `stated` false when the folder names
   * none and the library's default (cosine) applies. Null for a cross-encoder, which compares inside the model.
   */
  similarity: { name: string; stated: boolean } | null;
  /** Named prompts prepended to inputs (`query: `), and the default one. */
  prompts: Array<{ name: string; text: string }>;
  defaultPrompt: string | null;
  /** Parameters of the modules after the transformer (Dense weights and biases), which live in their own files. */
  headParameters: number;
  /** sentence-transformers' version that saved the folder. */
  version: string | null;
}
