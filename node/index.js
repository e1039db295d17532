'use strict'
// mentor-context for Node.js: the addon `npm run build` puts beside this file (napi build),
// its exports named one by one so that `import { Assembler } from 'mentor-context'` finds
// them. The TypeScript types are index.d.ts, generated from the Rust side by the same build.
const native = require('./mentor-context.node')

module.exports.Assembler = native.Assembler
module.exports.PromptAssembler = native.PromptAssembler
module.exports.CitationStream = native.CitationStream
module.exports.ResponseStream = native.ResponseStream
module.exports.resolveCitations = native.resolveCitations
module.exports.mistralToolContent = native.mistralToolContent
module.exports.cohereToolContent = native.cohereToolContent
module.exports.ErrorCode = native.ErrorCode
module.exports.TemplateErrorKind = native.TemplateErrorKind
