// The bytes of Node's IPC channel, both serializations, so that a child started in
// helper mode talks to its parent exactly as one started by child_process.fork does.
// The wire format is Node's (lib/internal/child_process/serialization.js):
// - "json": one JSON.stringify(message) + "\n" per message, read by splitting on "\n";
// - "advanced": a big-endian uint32 length, then the V8 serializer's output, where
//   host objects are tagged 0 (an ArrayBufferView) or 1 (any other native object,
//   written as a plain copy of its own properties, the way JSON would see it).
import { StringDecoder } from "node:string_decoder";
import v8 from "node:v8";

const ARRAY_BUFFER_VIEW_TAG = 0;
const NOT_ARRAY_BUFFER_VIEW_TAG = 1;

class ChannelSerializer extends v8.DefaultSerializer {
  _writeHostObject(object) {
    if (ArrayBuffer.isView(object)) {
      this.writeUint32(ARRAY_BUFFER_VIEW_TAG);
      return super._writeHostObject(object);
    }
    this.writeUint32(NOT_ARRAY_BUFFER_VIEW_TAG);
    this.writeValue({ ...object });
  }
}

class ChannelDeserializer extends v8.DefaultDeserializer {
  _readHostObject() {
    const tag = this.readUint32();
    if (tag === ARRAY_BUFFER_VIEW_TAG) return super._readHostObject();
    if (tag !== NOT_ARRAY_BUFFER_VIEW_TAG) throw new Error(`IPC message with an unknown host object tag ${tag}`);
    return this.readValue();
  }
}

/** Newline-delimited JSON. */
class JsonParser {
  #decoder = new StringDecoder("utf8");
  #partial = "";

  /** True while part of a message has arrived but not its end. */
  get buffering() {
    return this.#partial.length !== 0;
  }

  /** @param {Uint8Array} bytes @returns {unknown[]} the messages they completed */
  push(bytes) {
    const lines = this.#decoder.write(bytes).split("\n");
    const last = lines.pop();
    if (lines.length === 0) {
      this.#partial += last;
      return [];
    }
    lines[0] = this.#partial + lines[0];
    this.#partial = last;
    return lines.map((line) => JSON.parse(line));
  }
}

/** Length-prefixed V8 serialization. */
class AdvancedParser {
  /** @type {Buffer[]} */
  #chunks = [];
  #size = 0;

  get buffering() {
    return this.#size !== 0;
  }

  push(bytes) {
    this.#chunks.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.#size += bytes.byteLength;
    const messages = [];
    while (this.#size >= 4) {
      // Joining is deferred until a whole message is here: a 50 MB message arrives in
      // hundreds of chunks and must not be copied once per chunk.
      const head = this.#chunks[0].length >= 4 ? this.#chunks[0] : this.#joined();
      const end = 4 + head.readUInt32BE(0);
      if (this.#size < end) break;
      const all = this.#joined();
      const deserializer = new ChannelDeserializer(all.subarray(4, end));
      deserializer.readHeader();
      messages.push(deserializer.readValue());
      const rest = all.subarray(end);
      this.#chunks = rest.length ? [rest] : [];
      this.#size = rest.length;
    }
    return messages;
  }

  #joined() {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0];
  }
}

/**
 * The two serializations by name: `encode` gives one message's bytes on the channel
 * (throwing for a value the serialization cannot represent), `parser()` a reader
 * that turns received bytes into messages.
 */
export const SERIALIZATIONS = Object.freeze({
  json: {
    encode: (message) => Buffer.from(`${JSON.stringify(message)}\n`),
    parser: () => new JsonParser(),
  },
  advanced: {
    encode(message) {
      const serializer = new ChannelSerializer();
      serializer.writeRawBytes(Buffer.alloc(4)); // the length, filled in below
      serializer.writeHeader();
      serializer.writeValue(message);
      const bytes = serializer.releaseBuffer();
      bytes.writeUInt32BE(bytes.length - 4, 0);
      return bytes;
    },
    parser: () => new AdvancedParser(),
  },
});
