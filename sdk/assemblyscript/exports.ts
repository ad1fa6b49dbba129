// The module's exports (book: reference/wire.md). `othc build` passes this file to the
// compiler as a second entry file: its exports become the module's, and
// they come from the package, so there is one copy of the SDK's state.
export {
  othismo_alloc,
  othismo_scratch,
  othismo_start,
  othismo_serve,
  othismo_answer,
  othismo_error,
  othismo_cancel,
} from "othismo/host"
