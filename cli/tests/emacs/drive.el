;;; drive.el --- what cli/tests/emacs.rs asks of Emacs, in batch
;; After editors/emacs/othc.el: opens Hello.oth, asks a hover over its
;; mount, breaks the mount, renames a name and back (the mount's error must
;; still show), then breaks the startup request's payload in the buffer,
;; and writes what eglot and flymake show to $OTH_OUT as JSON.

(require 'json)
(require 'flymake)

(defun oth-finish (result)
  (with-temp-file (getenv "OTH_OUT") (insert (json-encode result)))
  (kill-emacs 0))

(defun oth-wait (what pred)
  "Waits up to 60 s for PRED, taking in the server's messages. Batch
Emacs is never idle, so what eglot and flymake do on idle timers (send
the buffer's changes, ask for the diagnostics) is done here."
  (let ((deadline (+ (float-time) 60)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (oth-finish `((error . ,(format "timed out waiting for %s" what)))))
      (when (eglot-current-server)
        (eglot--signal-textDocument/didChange)
        (flymake-start))
      (accept-process-output nil 0.05))))

(defun oth-settle (seconds)
  "Takes in the server's messages for SECONDS, as `oth-wait' does."
  (let ((until (+ (float-time) seconds)))
    (while (< (float-time) until)
      (eglot--signal-textDocument/didChange)
      (flymake-start)
      (accept-process-output nil 0.05))))

(defun oth-shown ()
  "What flymake shows in this buffer: line, column and text of each."
  (mapcar (lambda (d)
            (save-excursion
              (goto-char (flymake-diagnostic-beg d))
              `((line . ,(line-number-at-pos)) (column . ,(current-column))
                (text . ,(flymake-diagnostic-text d)))))
          (flymake-diagnostics)))

(defun oth-replace (old new)
  (goto-char (point-min))
  (search-forward old)
  (replace-match new t t))

(condition-case err
    (progn
      (find-file "Hello.oth")
      ;; eglot-ensure connects after the next command; batch has none.
      (run-hooks 'post-command-hook)
      (oth-wait "eglot to connect" #'eglot-current-server)
      ;; The clean file: told it has no diagnostics.
      (oth-wait "the first check" (lambda () (flymake-running-backends)))
      (sit-for 1)
      (let ((before (oth-shown)))
        (goto-char (point-min))
        (search-forward "mount /shouter")
        (backward-char 3)
        (let* ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                       (eglot--TextDocumentPositionParams)))
               (contents (plist-get hover :contents)))
          (oth-replace "/shouter  /loud" "/shouter  /lod")
          (oth-wait "the broken mount's diagnostic" (lambda () (oth-shown)))
          (let ((mount (oth-shown)))
            ;; A rename then its undo: the diagnostics are as before, and
            ;; must still show. (Debian's eglot 1.9 shows what it last
            ;; had; later eglots keep diagnostics by document version and
            ;; show none until a publish for the edited version comes,
            ;; which fixtures/lsp/republish_unchanged.lsp holds.)
            (oth-replace "instance cons" "instance conz")
            (eglot--signal-textDocument/didChange)
            (oth-replace "instance conz" "instance cons")
            (oth-settle 3)
            (let ((undone (oth-shown)))
              (oth-replace "/shouter  /lod" "/shouter  /loud")
              (oth-replace "write /greeter/greeting greeting" "write /greeter/greeting \"Hi\"")
              (oth-wait "the payload's diagnostic"
                        (lambda () (seq-some (lambda (d) (string-match-p "E0513\\|takes" (alist-get 'text d)))
                                             (oth-shown))))
                (oth-finish `((before . ,(vconcat before))
                            (hover_kind . ,(plist-get contents :kind))
                            (hover . ,(plist-get contents :value))
                            (mount . ,(vconcat mount))
                            (undone . ,(vconcat undone))
                            (payload . ,(vconcat (oth-shown))))))))))
  (error (oth-finish `((error . ,(error-message-string err))))))
