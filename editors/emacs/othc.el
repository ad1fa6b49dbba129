;;; othc.el --- Othismo's .oth files, checked by othc lsp through eglot

;; Load it from your init file: (load "/path/to/othismo/editors/emacs/othc.el")
;; `othc' must be on your PATH, or set `othc-program' before loading.

(require 'eglot)

(defvar othc-program "othc"
  "The othc command that serves the language (`othc lsp').")

(define-derived-mode oth-mode prog-mode "Oth"
  "Othismo's .oth files: headers, schemas and images."
  (setq-local comment-start "# ")
  (setq-local comment-start-skip "#+[ \t]*"))

(add-to-list 'auto-mode-alist '("\\.oth\\'" . oth-mode))
(add-to-list 'eglot-server-programs `(oth-mode . (,othc-program "lsp")))
(add-hook 'oth-mode-hook #'eglot-ensure)

(provide 'othc)
;;; othc.el ends here
