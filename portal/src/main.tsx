import { render } from 'preact';
import { App } from './app';
import './styles/base.css';
import './styles/layout.css';
import './styles/controls.css';
import './styles/data.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
