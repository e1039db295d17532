// The JavaScript half of the codec between JS values and the addon (see codec/mod.rs).
//
// Reading a JS object through N-API costs a call per property name, per property and per
// type check, and building one costs a call per property set: for the 50 x 2 KiB request
// that was more than V8 takes to JSON.parse the whole report. Here JavaScript does the walk
// it is fast at, and few values cross: one string holding the keys and short strings end to
// end, the long strings, and a Float64Array of tags, lengths (in UTF-16 code units) and
// numbers.
//
// `pack` writes a value as JSON.stringify would see it (toJSON is called; undefined,
// functions and symbols are left out of objects and are null in arrays), with no meaning
// of its own: the Rust side reads the tape through serde, so the library's wire rules
// decide what a result is. `unpack` builds what Rust serialized: structs by their shape,
// other objects with keys by number.
//
// The addon runs this file once per JavaScript environment (napi_run_script); it evaluates
// to the codec object and defines no globals.
(function () {
  'use strict'
  // Tags; codec/mod.rs has the same numbers.
  const STRING = 0
  const NUMBER = 1
  const TRUE = 2
  const FALSE = 3
  const NULL = 4
  const ARRAY = 5
  const OBJECT = 6
  const UNSUPPORTED = 7
  const SHAPE = 8
  const BIG = 9
  // Strings this long are copied out one by one, as V8 keeps them, rather than appended to
  // the text: that would copy them once more, into a string as long as the request, and the
  // garbage collector would meet it in the young generation.
  const LONG = 1024
  // What an UNSUPPORTED item was.
  const BIGINT = 0
  const TOO_DEEP = 2
  const UNDEFINED = 3
  const FUNCTION = 4
  const SYMBOL = 5
  const TWO_BYTE = /[^\x00-\xff]/
  // serde_json's own recursion limit: deeper input is refused, as the command refuses it.
  const MAX_DEPTH = 128

  const codec = {
    tags: null,
    length: 0,
    oneByte: true,
    bigs: undefined,
    bigCount: 0,
    pack,
    unpack,
    addKeys,
    addShapes,
    warn,
  }

  // A getter or toJSON that assembles while a value is packed gets buffers of its own.
  const main = packer()
  let busy = false
  function pack (value) {
    if (busy) return packer()(value)
    busy = true
    try {
      return main(value)
    } finally {
      busy = false
    }
  }

  // A packer: its text and tags are set on the codec when it is done, for Rust to read.
  function packer () {
    let tags = new Float64Array(4096)
    let n = 0
    let bigs = []

    function room (k) {
      if (n + k > tags.length) {
        const more = new Float64Array(Math.max(tags.length * 2, n + k))
        more.set(tags.subarray(0, n))
        tags = more
      }
    }

    // The text so far goes in and out of each call: kept in the closure instead, every
    // append would store a new string into an old object, through V8's write barrier.
    // A lone surrogate is found by Rust, which reads each piece apart: checked here, it would
    // cost a call per string, and two pieces end to end could pair one up.
    function string (s, text) {
      room(2)
      if (s.length >= LONG) {
        tags[n++] = BIG
        tags[n++] = bigs.length
        bigs.push(s)
        return text
      }
      tags[n++] = STRING
      tags[n++] = s.length
      return text + s
    }

    function unsupported (kind) {
      room(2)
      tags[n++] = UNSUPPORTED
      tags[n++] = kind
    }

    function write (v, depth, text) {
      switch (typeof v) {
        case 'string':
          return string(v, text)
        case 'number':
          room(2)
          tags[n++] = NUMBER
          tags[n++] = v
          return text
        case 'boolean':
          room(1)
          tags[n++] = v ? TRUE : FALSE
          return text
        case 'object':
          break
        case 'bigint':
          unsupported(BIGINT)
          return text
        case 'function':
          unsupported(FUNCTION)
          return text
        case 'symbol':
          unsupported(SYMBOL)
          return text
        default:
          unsupported(UNDEFINED)
          return text
      }
      if (v === null) {
        room(1)
        tags[n++] = NULL
        return text
      }
      if (depth >= MAX_DEPTH) {
        unsupported(TOO_DEEP)
        return text
      }
      if (Array.isArray(v)) {
        const len = v.length
        room(2)
        tags[n++] = ARRAY
        tags[n++] = len
        for (let i = 0; i < len; i++) {
          const x = json(v[i], String(i))
          if (leftOut(x)) {
            room(1)
            tags[n++] = NULL
          } else {
            text = write(x, depth + 1, text)
          }
        }
        return text
      }
      const keys = Object.keys(v)
      room(2)
      tags[n++] = OBJECT
      const count = n++
      let kept = 0
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]
        const x = json(v[key], key)
        if (leftOut(x)) continue
        kept++
        room(1)
        tags[n++] = key.length
        text = write(x, depth + 1, text + key)
      }
      tags[count] = kept
      return text
    }

    return function (value) {
      n = 0
      bigs = []
      const text = write(json(value, ''), 0, '')
      codec.length = n
      // After the tape, whether each long string is one byte per character: V8 answers at
      // once for one it keeps so, and searches only the others.
      room(bigs.length)
      for (let i = 0; i < bigs.length; i++) tags[n++] = TWO_BYTE.test(bigs[i]) ? 0 : 1
      codec.tags = tags
      codec.bigs = bigs
      codec.bigCount = bigs.length
      // Whether every character is below U+0100, so that Rust may copy the text out one
      // byte per character. V8 answers this at once for a string it keeps one byte per
      // character (no such character can be in it); only other strings are searched.
      codec.oneByte = !TWO_BYTE.test(text)
      // A buffer grown by one huge request is let go, as the Rust side lets its buffers go.
      if (tags.length > 1 << 20) tags = new Float64Array(4096)
      return text
    }
  }

  // The value JSON.stringify writes for `x`: its toJSON's, if it has one.
  function json (x, key) {
    return x !== null && typeof x === 'object' && typeof x.toJSON === 'function' ? x.toJSON(key) : x
  }

  // What JSON.stringify leaves out of an object (and writes as null in an array).
  function leftOut (x) {
    return x === undefined || typeof x === 'function' || typeof x === 'symbol'
  }

  // Keys of the objects Rust serializes, by number (codec/keys.rs numbers them).
  const keys = []
  function addKeys (names) {
    for (let i = 0; i < names.length; i++) keys.push(names[i])
  }

  // Shapes of the structs Rust serializes, by number (codec/shapes.rs): each a function that
  // builds an object of that shape with one object literal, reading its values in order.
  const shapes = []
  function addShapes (list) {
    for (let i = 0; i < list.length; i++) shapes.push(literal(list[i].split('\n')))
  }

  function literal (names) {
    // Names come from Rust structs' fields; a name JSON.parse would treat as a property but
    // an object literal as the prototype cannot be written in one.
    if (!names.includes('__proto__')) {
      try {
        const fields = names.map((name) => `${JSON.stringify(name)}: read()`).join(', ')
        // eslint-disable-next-line no-new-func
        return new Function('read', `return function () { return { ${fields} } }`)(read)
      } catch (_) {
        // Code generation from strings is off (--disallow-code-generation-from-strings).
      }
    }
    return function () {
      const o = {}
      for (let i = 0; i < names.length; i++) {
        Object.defineProperty(o, names[i], { value: read(), enumerable: true, writable: true, configurable: true })
      }
      return o
    }
  }

  let src = ''
  let at = 0
  let t = null
  let pos = 0

  function unpack (s, tape) {
    src = s
    at = 0
    t = tape
    pos = 0
    const value = read()
    src = ''
    t = null
    return value
  }

  function piece () {
    const len = t[pos++]
    const s = src.slice(at, at + len)
    at += len
    return s
  }

  function read () {
    switch (t[pos++]) {
      case STRING:
        return piece()
      case NUMBER:
        return t[pos++]
      case SHAPE:
        return shapes[t[pos++]]()
      case OBJECT: {
        const count = t[pos++]
        const o = {}
        for (let i = 0; i < count; i++) {
          const id = t[pos++]
          if (id >= 0) {
            o[keys[id]] = read()
            continue
          }
          // A key of the data (a metadata key): `__proto__` must be a property, as
          // JSON.parse makes it, not the prototype.
          const key = piece()
          if (key === '__proto__') {
            Object.defineProperty(o, key, { value: read(), enumerable: true, writable: true, configurable: true })
          } else {
            o[key] = read()
          }
        }
        return o
      }
      case ARRAY: {
        const count = t[pos++]
        const a = []
        for (let i = 0; i < count; i++) a.push(read())
        return a
      }
      case TRUE:
        return true
      case FALSE:
        return false
      default:
        return null
    }
  }

  function warn (message) {
    process.emitWarning(message, { type: 'MentorContextWarning', code: 'UNKNOWN_PROPERTY' })
  }

  return codec
})()
