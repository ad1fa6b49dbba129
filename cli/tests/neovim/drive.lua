-- Drives Neovim as a user would, for cli/tests/neovim.rs: the buffer given
-- on the command line is open with the book's configuration
-- (editors/neovim/othc.lua); wait for the server, note the diagnostics,
-- make the edit the test names, wait for what the server says of it, and
-- write it all to $OTH_OUT as JSON.
local out = os.getenv("OTH_OUT")
local old, new = os.getenv("OTH_OLD"), os.getenv("OTH_NEW")
local result = { before = {}, after = {}, latency_ms = -1, error = nil }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qa!")
end

local function snapshot()
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(list, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message,
      code = lsp.code or d.code,
      related = lsp.relatedInformation,
      href = (lsp.codeDescription or {}).href,
    })
  end
  return list
end

local ok = vim.wait(60000, function()
  local clients = vim.lsp.buf_get_clients(0)
  for _, c in pairs(clients) do
    if c.initialized then return true end
  end
  return false
end, 20)
if not ok then
  result.error = "the othc client did not attach and initialize within 60 s"
  return finish()
end

-- An answered request means the open buffer has been checked and whatever
-- it had to say has been published.
vim.lsp.buf_request_sync(0, "textDocument/documentSymbol",
  { textDocument = vim.lsp.util.make_text_document_params() }, 60000)
vim.wait(200, function() return false end)
result.before = snapshot()

-- The edit, as typing it would make it: replace `old` with `new` in place.
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local row, col = nil, nil
for i, l in ipairs(lines) do
  local s = string.find(l, old, 1, true)
  if s then row, col = i - 1, s - 1 break end
end
if row == nil then
  result.error = "`" .. old .. "` is not in the buffer"
  return finish()
end
local t0 = vim.loop.hrtime()
vim.api.nvim_buf_set_text(0, row, col, row, col + #old, { new })
local got = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 1)
result.latency_ms = (vim.loop.hrtime() - t0) / 1e6
if not got then
  result.error = "no diagnostics within 60 s of the edit"
end
result.after = snapshot()
finish()
