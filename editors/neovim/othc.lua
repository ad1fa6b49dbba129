-- othc's language server for .oth files, with Neovim's built-in LSP client
-- (Neovim 0.7 and later). Put this file in ~/.config/nvim/plugin/, or
-- `dofile` it from your init.lua. `othc` must be on PATH, or set
-- `vim.g.othc_path` to where it is before this file runs.
vim.cmd([[autocmd BufRead,BufNewFile *.oth setfiletype oth]])

local client_id = nil
vim.api.nvim_create_autocmd("FileType", {
  pattern = "oth",
  callback = function(args)
    if client_id == nil then
      client_id = vim.lsp.start_client({
        name = "othc",
        cmd = { vim.g.othc_path or "othc", "lsp" },
        root_dir = vim.fn.getcwd(),
      })
    end
    if client_id ~= nil then
      vim.lsp.buf_attach_client(args.buf, client_id)
    end
  end,
})
