import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface Props {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
}

/** A modal confirmation (native <dialog>: focus trapped, Escape closes). */
export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onClose }: Props): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="confirm-title" onClose={onClose}>
      <h2 id="confirm-title">{title}</h2>
      <p>{message}</p>
      <div class="actions">
        <button
          type="button"
          class="button button-danger"
          onClick={() => {
            onConfirm();
            onClose();
          }}
        >
          {confirmLabel}
        </button>
        <button type="button" class="button" onClick={onClose} autoFocus>
          Keep it
        </button>
      </div>
    </dialog>
  );
}
