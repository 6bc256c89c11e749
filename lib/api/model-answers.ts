import { jsonTextResponse, toJson } from "./json";

/**
 * Serialized answers per read model (one per cycle) and normalized query: at 10,000 partitions 50 clients asking for
 * the same page between two cycles get the text the first one paid for, instead of queueing behind 50 identical
 * computations. An answer depends on the model and the query only (nothing here reads the clock or the caller), so
 * the text stays exact until the next cycle's model, whose answers start from an empty cache. Bounded per model, by
 * count and by size (a `limit=5000` page is 2.7 MB): the oldest answers go first.
 */
const answersOf = new WeakMap<object, { texts: Map<string, string>; chars: number }>();
export const maxAnswersPerModel = 64;
const maxAnswerCharsPerModel = 16 * 1024 * 1024;

/** The JSON answer to `key` for `model`: built and serialized on first use, then the same text until a new model. */
export function respondFromModel(model: object, key: string, build: () => unknown): Response {
  let cache = answersOf.get(model);
  if (!cache) answersOf.set(model, (cache = { texts: new Map(), chars: 0 }));
  let text = cache.texts.get(key);
  if (text === undefined) {
    text = toJson(build());
    rememberAnswer(cache, key, text);
  }
  return jsonTextResponse(text);
}

function rememberAnswer(cache: { texts: Map<string, string>; chars: number }, key: string, text: string): void {
  if (text.length > maxAnswerCharsPerModel) return;
  for (const [oldest, held] of cache.texts) {
    if (cache.texts.size < maxAnswersPerModel && cache.chars + text.length <= maxAnswerCharsPerModel) break;
    cache.texts.delete(oldest);
    cache.chars -= held.length;
  }
  cache.texts.set(key, text);
  cache.chars += text.length;
}
