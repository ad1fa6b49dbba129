;;; drive.el --- what cli/tests/emacs.rs asks of Emacs, in batch
;; After editors/emacs/othc.el: opens Hello.oth, asks a hover over its
;; mount, breaks the mount and then the startup request's payload in the
;; buffer, and writes what eglot and flymake show to $OTH_OUT as JSON.

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
            (oth-replace "/shouter  /lod" "/shouter  /loud")
            (oth-replace "write /greeter/greeting greeting" "write /greeter/greeting \"Hi\"")
            (oth-wait "the payload's diagnostic"
                      (lambda () (seq-some (lambda (d) (string-match-p "E0513\\|takes" (alist-get 'text d)))
                                           (oth-shown))))
            (oth-finish `((before . ,(vconcat before))
                          (hover_kind . ,(plist-get contents :kind))
                          (hover . ,(plist-get contents :value))
                          (mount . ,(vconcat mount))
                          (payload . ,(vconcat (oth-shown)))))))))
  (error (oth-finish `((error . ,(error-message-string err))))))
