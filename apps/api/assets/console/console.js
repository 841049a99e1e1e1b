// The console's only script: copy buttons and confirmations; every page works without it.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  navigator.clipboard.writeText(button.getAttribute('data-copy')).then(
    () => { button.textContent = 'Copied'; },
    () => { button.textContent = 'Copy failed: select the text'; },
  );
});
document.addEventListener('submit', (event) => {
  const message = event.target instanceof Element ? event.target.getAttribute('data-confirm') : null;
  if (message && !window.confirm(message)) event.preventDefault();
});
